file(REMOVE_RECURSE
  "CMakeFiles/test_concurrency_timers.dir/tests/test_concurrency_timers.c.o"
  "CMakeFiles/test_concurrency_timers.dir/tests/test_concurrency_timers.c.o.d"
  "test_concurrency_timers"
  "test_concurrency_timers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_concurrency_timers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
