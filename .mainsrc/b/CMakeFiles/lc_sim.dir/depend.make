# Empty dependencies file for lc_sim.
# This may be replaced when dependencies are built.
