file(REMOVE_RECURSE
  "CMakeFiles/test_leaptable.dir/tests/test_leaptable.c.o"
  "CMakeFiles/test_leaptable.dir/tests/test_leaptable.c.o.d"
  "test_leaptable"
  "test_leaptable.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_leaptable.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
