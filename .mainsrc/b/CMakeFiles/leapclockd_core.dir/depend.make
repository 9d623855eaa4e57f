# Empty dependencies file for leapclockd_core.
# This may be replaced when dependencies are built.
