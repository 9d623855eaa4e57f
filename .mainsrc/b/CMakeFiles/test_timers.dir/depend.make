# Empty dependencies file for test_timers.
# This may be replaced when dependencies are built.
