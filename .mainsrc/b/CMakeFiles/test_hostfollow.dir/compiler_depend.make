# Empty compiler generated dependencies file for test_hostfollow.
# This may be replaced when dependencies are built.
