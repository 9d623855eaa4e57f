file(REMOVE_RECURSE
  "CMakeFiles/test_tk_inverse.dir/tests/test_tk_inverse.c.o"
  "CMakeFiles/test_tk_inverse.dir/tests/test_tk_inverse.c.o.d"
  "test_tk_inverse"
  "test_tk_inverse.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tk_inverse.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
