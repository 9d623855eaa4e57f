# Empty compiler generated dependencies file for test_server_rx.
# This may be replaced when dependencies are built.
