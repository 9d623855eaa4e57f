file(REMOVE_RECURSE
  "CMakeFiles/test_tk_swap.dir/tests/test_tk_swap.c.o"
  "CMakeFiles/test_tk_swap.dir/tests/test_tk_swap.c.o.d"
  "test_tk_swap"
  "test_tk_swap.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_tk_swap.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
