file(REMOVE_RECURSE
  "CMakeFiles/test_civil.dir/tests/test_civil.c.o"
  "CMakeFiles/test_civil.dir/tests/test_civil.c.o.d"
  "test_civil"
  "test_civil.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_civil.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
