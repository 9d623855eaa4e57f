# Empty compiler generated dependencies file for test_invariants.
# This may be replaced when dependencies are built.
