# Empty dependencies file for leapclock_static.
# This may be replaced when dependencies are built.
