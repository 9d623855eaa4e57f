# Empty dependencies file for test_server_metrics.
# This may be replaced when dependencies are built.
