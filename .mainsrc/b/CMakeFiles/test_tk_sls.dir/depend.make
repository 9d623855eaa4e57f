# Empty dependencies file for test_tk_sls.
# This may be replaced when dependencies are built.
