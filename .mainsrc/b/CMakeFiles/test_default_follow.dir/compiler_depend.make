# Empty compiler generated dependencies file for test_default_follow.
# This may be replaced when dependencies are built.
