file(REMOVE_RECURSE
  "CMakeFiles/test_timer_2015.dir/tests/test_timer_2015.c.o"
  "CMakeFiles/test_timer_2015.dir/tests/test_timer_2015.c.o.d"
  "test_timer_2015"
  "test_timer_2015.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timer_2015.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
