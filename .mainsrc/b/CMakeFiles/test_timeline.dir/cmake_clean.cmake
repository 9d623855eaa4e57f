file(REMOVE_RECURSE
  "CMakeFiles/test_timeline.dir/tests/test_timeline.c.o"
  "CMakeFiles/test_timeline.dir/tests/test_timeline.c.o.d"
  "test_timeline"
  "test_timeline.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timeline.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
