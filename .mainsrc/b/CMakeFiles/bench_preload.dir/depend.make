# Empty dependencies file for bench_preload.
# This may be replaced when dependencies are built.
