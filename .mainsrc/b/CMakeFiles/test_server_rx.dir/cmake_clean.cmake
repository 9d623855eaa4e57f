file(REMOVE_RECURSE
  "CMakeFiles/test_server_rx.dir/tests/test_server_rx.c.o"
  "CMakeFiles/test_server_rx.dir/tests/test_server_rx.c.o.d"
  "test_server_rx"
  "test_server_rx.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_rx.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
