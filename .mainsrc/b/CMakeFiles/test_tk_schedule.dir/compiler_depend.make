# Empty compiler generated dependencies file for test_tk_schedule.
# This may be replaced when dependencies are built.
