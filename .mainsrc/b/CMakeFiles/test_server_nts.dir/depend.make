# Empty dependencies file for test_server_nts.
# This may be replaced when dependencies are built.
