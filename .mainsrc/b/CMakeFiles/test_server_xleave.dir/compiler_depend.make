# Empty compiler generated dependencies file for test_server_xleave.
# This may be replaced when dependencies are built.
