file(REMOVE_RECURSE
  "CMakeFiles/test_tk_schedule.dir/tests/test_tk_schedule.c.o"
  "CMakeFiles/test_tk_schedule.dir/tests/test_tk_schedule.c.o.d"
  "test_tk_schedule"
  "test_tk_schedule.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tk_schedule.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
