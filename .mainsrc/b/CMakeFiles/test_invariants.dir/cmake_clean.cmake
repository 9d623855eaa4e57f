file(REMOVE_RECURSE
  "CMakeFiles/test_invariants.dir/tests/test_invariants.c.o"
  "CMakeFiles/test_invariants.dir/tests/test_invariants.c.o.d"
  "test_invariants"
  "test_invariants.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_invariants.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
