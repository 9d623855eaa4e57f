file(REMOVE_RECURSE
  "CMakeFiles/test_leap_a_day.dir/tests/test_leap_a_day.c.o"
  "CMakeFiles/test_leap_a_day.dir/tests/test_leap_a_day.c.o.d"
  "test_leap_a_day"
  "test_leap_a_day.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_leap_a_day.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
