# Empty compiler generated dependencies file for bench_timers.
# This may be replaced when dependencies are built.
