file(REMOVE_RECURSE
  "CMakeFiles/test_server_xleave.dir/tests/test_server_xleave.c.o"
  "CMakeFiles/test_server_xleave.dir/tests/test_server_xleave.c.o.d"
  "test_server_xleave"
  "test_server_xleave.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_xleave.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
