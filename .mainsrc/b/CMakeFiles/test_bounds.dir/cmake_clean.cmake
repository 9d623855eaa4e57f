file(REMOVE_RECURSE
  "CMakeFiles/test_bounds.dir/tests/test_bounds.c.o"
  "CMakeFiles/test_bounds.dir/tests/test_bounds.c.o.d"
  "test_bounds"
  "test_bounds.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_bounds.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
