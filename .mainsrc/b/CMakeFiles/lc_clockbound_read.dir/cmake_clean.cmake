file(REMOVE_RECURSE
  "CMakeFiles/lc_clockbound_read.dir/tests/progs/clockbound_read.c.o"
  "CMakeFiles/lc_clockbound_read.dir/tests/progs/clockbound_read.c.o.d"
  "lc_clockbound_read"
  "lc_clockbound_read.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_clockbound_read.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
