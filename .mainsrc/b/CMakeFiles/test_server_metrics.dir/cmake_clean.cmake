file(REMOVE_RECURSE
  "CMakeFiles/test_server_metrics.dir/tests/test_server_metrics.c.o"
  "CMakeFiles/test_server_metrics.dir/tests/test_server_metrics.c.o.d"
  "test_server_metrics"
  "test_server_metrics.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_server_metrics.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
