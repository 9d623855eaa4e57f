file(REMOVE_RECURSE
  "CMakeFiles/test_default_follow.dir/tests/test_default_follow.c.o"
  "CMakeFiles/test_default_follow.dir/tests/test_default_follow.c.o.d"
  "test_default_follow"
  "test_default_follow.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_default_follow.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
