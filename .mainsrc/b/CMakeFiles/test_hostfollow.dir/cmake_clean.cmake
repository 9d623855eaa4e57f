file(REMOVE_RECURSE
  "CMakeFiles/test_hostfollow.dir/tests/test_hostfollow.c.o"
  "CMakeFiles/test_hostfollow.dir/tests/test_hostfollow.c.o.d"
  "test_hostfollow"
  "test_hostfollow.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_hostfollow.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
