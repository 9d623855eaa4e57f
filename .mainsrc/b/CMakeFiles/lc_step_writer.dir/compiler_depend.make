# Empty compiler generated dependencies file for lc_step_writer.
# This may be replaced when dependencies are built.
