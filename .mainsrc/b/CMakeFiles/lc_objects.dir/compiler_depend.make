# Empty compiler generated dependencies file for lc_objects.
# This may be replaced when dependencies are built.
