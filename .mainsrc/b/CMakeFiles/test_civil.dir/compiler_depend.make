# Empty compiler generated dependencies file for test_civil.
# This may be replaced when dependencies are built.
