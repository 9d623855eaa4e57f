file(REMOVE_RECURSE
  "CMakeFiles/test_concurrency_readers.dir/tests/test_concurrency_readers.c.o"
  "CMakeFiles/test_concurrency_readers.dir/tests/test_concurrency_readers.c.o.d"
  "test_concurrency_readers"
  "test_concurrency_readers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_concurrency_readers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
