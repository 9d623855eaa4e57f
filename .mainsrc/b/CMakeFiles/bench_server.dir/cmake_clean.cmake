file(REMOVE_RECURSE
  "CMakeFiles/bench_server.dir/bench/bench_server.c.o"
  "CMakeFiles/bench_server.dir/bench/bench_server.c.o.d"
  "bench_server"
  "bench_server.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_server.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
