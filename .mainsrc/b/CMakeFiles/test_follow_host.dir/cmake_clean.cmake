file(REMOVE_RECURSE
  "CMakeFiles/test_follow_host.dir/tests/test_follow_host.c.o"
  "CMakeFiles/test_follow_host.dir/tests/test_follow_host.c.o.d"
  "test_follow_host"
  "test_follow_host.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_follow_host.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
