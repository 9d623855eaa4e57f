file(REMOVE_RECURSE
  "CMakeFiles/bench_timers.dir/bench/bench_timers.c.o"
  "CMakeFiles/bench_timers.dir/bench/bench_timers.c.o.d"
  "bench_timers"
  "bench_timers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_timers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
