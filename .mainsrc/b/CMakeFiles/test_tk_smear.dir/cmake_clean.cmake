file(REMOVE_RECURSE
  "CMakeFiles/test_tk_smear.dir/tests/test_tk_smear.c.o"
  "CMakeFiles/test_tk_smear.dir/tests/test_tk_smear.c.o.d"
  "test_tk_smear"
  "test_tk_smear.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tk_smear.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
