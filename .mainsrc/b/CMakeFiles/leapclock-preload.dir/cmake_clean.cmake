file(REMOVE_RECURSE
  "CMakeFiles/leapclock-preload.dir/preload/clock.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/clock.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/hostcall.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/hostcall.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/ntp.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/ntp.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/preload.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/preload.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/sandbox.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/sandbox.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/timers.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/timers.c.o.d"
  "CMakeFiles/leapclock-preload.dir/preload/wait.c.o"
  "CMakeFiles/leapclock-preload.dir/preload/wait.c.o.d"
  "libleapclock-preload.pdb"
  "libleapclock-preload.so"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/leapclock-preload.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
