# Empty compiler generated dependencies file for bench_timeline.
# This may be replaced when dependencies are built.
