file(REMOVE_RECURSE
  "CMakeFiles/test_server_keys.dir/tests/test_server_keys.c.o"
  "CMakeFiles/test_server_keys.dir/tests/test_server_keys.c.o.d"
  "test_server_keys"
  "test_server_keys.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_keys.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
