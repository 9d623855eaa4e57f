# Empty compiler generated dependencies file for test_counter.
# This may be replaced when dependencies are built.
