# Empty dependencies file for test_leaptable.
# This may be replaced when dependencies are built.
