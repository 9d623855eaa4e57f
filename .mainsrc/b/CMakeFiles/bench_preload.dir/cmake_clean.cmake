file(REMOVE_RECURSE
  "CMakeFiles/bench_preload.dir/bench/bench_preload.c.o"
  "CMakeFiles/bench_preload.dir/bench/bench_preload.c.o.d"
  "bench_preload"
  "bench_preload.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_preload.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
