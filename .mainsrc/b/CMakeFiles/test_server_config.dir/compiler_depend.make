# Empty compiler generated dependencies file for test_server_config.
# This may be replaced when dependencies are built.
