# Empty dependencies file for test_follow_host.
# This may be replaced when dependencies are built.
