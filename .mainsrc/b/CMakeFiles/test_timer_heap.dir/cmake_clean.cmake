file(REMOVE_RECURSE
  "CMakeFiles/test_timer_heap.dir/tests/test_timer_heap.c.o"
  "CMakeFiles/test_timer_heap.dir/tests/test_timer_heap.c.o.d"
  "test_timer_heap"
  "test_timer_heap.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timer_heap.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
