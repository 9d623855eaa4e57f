# Empty compiler generated dependencies file for test_timeline.
# This may be replaced when dependencies are built.
