# Empty compiler generated dependencies file for leapclockd.
# This may be replaced when dependencies are built.
