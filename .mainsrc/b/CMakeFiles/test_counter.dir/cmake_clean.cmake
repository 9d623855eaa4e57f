file(REMOVE_RECURSE
  "CMakeFiles/test_counter.dir/tests/test_counter.c.o"
  "CMakeFiles/test_counter.dir/tests/test_counter.c.o.d"
  "test_counter"
  "test_counter.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_counter.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
