# Empty dependencies file for bench_read.
# This may be replaced when dependencies are built.
