# Empty compiler generated dependencies file for test_tk_swap.
# This may be replaced when dependencies are built.
