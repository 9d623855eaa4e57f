# Empty dependencies file for test_timer_2015.
# This may be replaced when dependencies are built.
