file(REMOVE_RECURSE
  "CMakeFiles/test_timekeeper.dir/tests/test_timekeeper.c.o"
  "CMakeFiles/test_timekeeper.dir/tests/test_timekeeper.c.o.d"
  "test_timekeeper"
  "test_timekeeper.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timekeeper.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
