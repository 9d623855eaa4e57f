# Empty compiler generated dependencies file for test_sha1.
# This may be replaced when dependencies are built.
