file(REMOVE_RECURSE
  "CMakeFiles/test_smear.dir/tests/test_smear.c.o"
  "CMakeFiles/test_smear.dir/tests/test_smear.c.o.d"
  "test_smear"
  "test_smear.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_smear.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
