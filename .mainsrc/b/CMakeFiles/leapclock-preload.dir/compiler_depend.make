# Empty compiler generated dependencies file for leapclock-preload.
# This may be replaced when dependencies are built.
