# Empty compiler generated dependencies file for test_timer_property.
# This may be replaced when dependencies are built.
