file(REMOVE_RECURSE
  "CMakeFiles/test_server_clock.dir/tests/test_server_clock.c.o"
  "CMakeFiles/test_server_clock.dir/tests/test_server_clock.c.o.d"
  "test_server_clock"
  "test_server_clock.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_clock.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
