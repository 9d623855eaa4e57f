file(REMOVE_RECURSE
  "CMakeFiles/test_preload_smear.dir/tests/test_preload_smear.c.o"
  "CMakeFiles/test_preload_smear.dir/tests/test_preload_smear.c.o.d"
  "test_preload_smear"
  "test_preload_smear.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_preload_smear.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
