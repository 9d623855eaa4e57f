file(REMOVE_RECURSE
  "CMakeFiles/test_timer_property.dir/tests/test_timer_property.c.o"
  "CMakeFiles/test_timer_property.dir/tests/test_timer_property.c.o.d"
  "test_timer_property"
  "test_timer_property.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timer_property.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
