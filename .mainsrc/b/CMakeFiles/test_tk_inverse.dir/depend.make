# Empty dependencies file for test_tk_inverse.
# This may be replaced when dependencies are built.
