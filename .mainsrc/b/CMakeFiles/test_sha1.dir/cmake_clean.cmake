file(REMOVE_RECURSE
  "CMakeFiles/test_sha1.dir/tests/test_sha1.c.o"
  "CMakeFiles/test_sha1.dir/tests/test_sha1.c.o.d"
  "test_sha1"
  "test_sha1.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sha1.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
