# Empty compiler generated dependencies file for test_timekeeper.
# This may be replaced when dependencies are built.
