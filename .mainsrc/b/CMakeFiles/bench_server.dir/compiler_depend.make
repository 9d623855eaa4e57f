# Empty compiler generated dependencies file for bench_server.
# This may be replaced when dependencies are built.
