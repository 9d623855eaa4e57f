# Empty dependencies file for test_concurrency_timers.
# This may be replaced when dependencies are built.
