# Empty compiler generated dependencies file for test_timerfd_driver.
# This may be replaced when dependencies are built.
