# Empty dependencies file for test_preload_smear.
# This may be replaced when dependencies are built.
