# Empty dependencies file for test_tk_smear.
# This may be replaced when dependencies are built.
