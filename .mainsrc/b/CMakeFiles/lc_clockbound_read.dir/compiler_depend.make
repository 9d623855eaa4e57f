# Empty compiler generated dependencies file for lc_clockbound_read.
# This may be replaced when dependencies are built.
