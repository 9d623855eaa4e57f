file(REMOVE_RECURSE
  "CMakeFiles/leapclockd.dir/tools/leapclockd/main.c.o"
  "CMakeFiles/leapclockd.dir/tools/leapclockd/main.c.o.d"
  "leapclockd"
  "leapclockd.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/leapclockd.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
