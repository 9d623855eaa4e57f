# Empty compiler generated dependencies file for test_sls_fast.
# This may be replaced when dependencies are built.
