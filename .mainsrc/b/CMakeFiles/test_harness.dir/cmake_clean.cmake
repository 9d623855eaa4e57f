file(REMOVE_RECURSE
  "CMakeFiles/test_harness.dir/tests/test_harness.c.o"
  "CMakeFiles/test_harness.dir/tests/test_harness.c.o.d"
  "test_harness"
  "test_harness.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_harness.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
