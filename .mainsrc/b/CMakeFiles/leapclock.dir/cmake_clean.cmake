file(REMOVE_RECURSE
  "CMakeFiles/leapclock.dir/src/hostcall.c.o"
  "CMakeFiles/leapclock.dir/src/hostcall.c.o.d"
  "libleapclock.pdb"
  "libleapclock.so"
  "libleapclock.so.0.2.0"
  "libleapclock.so.1"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/leapclock.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
