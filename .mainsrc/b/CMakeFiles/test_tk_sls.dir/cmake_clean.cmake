file(REMOVE_RECURSE
  "CMakeFiles/test_tk_sls.dir/tests/test_tk_sls.c.o"
  "CMakeFiles/test_tk_sls.dir/tests/test_tk_sls.c.o.d"
  "test_tk_sls"
  "test_tk_sls.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tk_sls.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
