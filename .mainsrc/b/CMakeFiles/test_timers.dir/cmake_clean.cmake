file(REMOVE_RECURSE
  "CMakeFiles/test_timers.dir/tests/test_timers.c.o"
  "CMakeFiles/test_timers.dir/tests/test_timers.c.o.d"
  "test_timers"
  "test_timers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
