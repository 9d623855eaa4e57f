file(REMOVE_RECURSE
  "CMakeFiles/test_null_rule.dir/tests/test_null_rule.c.o"
  "CMakeFiles/test_null_rule.dir/tests/test_null_rule.c.o.d"
  "test_null_rule"
  "test_null_rule.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_null_rule.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
