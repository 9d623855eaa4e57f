# Empty dependencies file for test_timer_heap.
# This may be replaced when dependencies are built.
