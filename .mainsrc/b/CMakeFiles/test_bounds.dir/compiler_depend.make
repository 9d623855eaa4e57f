# Empty compiler generated dependencies file for test_bounds.
# This may be replaced when dependencies are built.
