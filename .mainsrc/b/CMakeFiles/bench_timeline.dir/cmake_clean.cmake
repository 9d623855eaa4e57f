file(REMOVE_RECURSE
  "CMakeFiles/bench_timeline.dir/bench/bench_timeline.c.o"
  "CMakeFiles/bench_timeline.dir/bench/bench_timeline.c.o.d"
  "bench_timeline"
  "bench_timeline.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_timeline.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
