# Empty dependencies file for test_server_clock.
# This may be replaced when dependencies are built.
