# Empty compiler generated dependencies file for test_smear.
# This may be replaced when dependencies are built.
