file(REMOVE_RECURSE
  "CMakeFiles/test_server_nts.dir/tests/test_server_nts.c.o"
  "CMakeFiles/test_server_nts.dir/tests/test_server_nts.c.o.d"
  "test_server_nts"
  "test_server_nts.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_nts.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
