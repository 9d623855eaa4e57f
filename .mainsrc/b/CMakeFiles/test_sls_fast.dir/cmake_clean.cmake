file(REMOVE_RECURSE
  "CMakeFiles/test_sls_fast.dir/tests/test_sls_fast.c.o"
  "CMakeFiles/test_sls_fast.dir/tests/test_sls_fast.c.o.d"
  "test_sls_fast"
  "test_sls_fast.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sls_fast.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
