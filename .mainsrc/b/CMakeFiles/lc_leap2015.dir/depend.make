# Empty dependencies file for lc_leap2015.
# This may be replaced when dependencies are built.
