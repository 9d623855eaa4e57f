file(REMOVE_RECURSE
  "CMakeFiles/test_server_config.dir/tests/test_server_config.c.o"
  "CMakeFiles/test_server_config.dir/tests/test_server_config.c.o.d"
  "test_server_config"
  "test_server_config.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
