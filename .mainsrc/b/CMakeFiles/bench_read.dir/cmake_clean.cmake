file(REMOVE_RECURSE
  "CMakeFiles/bench_read.dir/bench/bench_read.c.o"
  "CMakeFiles/bench_read.dir/bench/bench_read.c.o.d"
  "bench_read"
  "bench_read.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_read.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
