# Empty dependencies file for test_leap_a_day.
# This may be replaced when dependencies are built.
