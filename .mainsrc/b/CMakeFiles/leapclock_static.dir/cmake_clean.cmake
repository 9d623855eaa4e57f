file(REMOVE_RECURSE
  "CMakeFiles/leapclock_static.dir/src/hostcall.c.o"
  "CMakeFiles/leapclock_static.dir/src/hostcall.c.o.d"
  "libleapclock.a"
  "libleapclock.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/leapclock_static.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
