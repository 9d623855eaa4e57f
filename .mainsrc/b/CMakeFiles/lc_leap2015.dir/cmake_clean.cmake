file(REMOVE_RECURSE
  "CMakeFiles/lc_leap2015.dir/tests/progs/leap2015.c.o"
  "CMakeFiles/lc_leap2015.dir/tests/progs/leap2015.c.o.d"
  "lc_leap2015"
  "lc_leap2015.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_leap2015.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
