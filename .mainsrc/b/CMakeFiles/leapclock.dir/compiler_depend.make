# Empty compiler generated dependencies file for leapclock.
# This may be replaced when dependencies are built.
