
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/preload/clock.c" "CMakeFiles/leapclock-preload.dir/preload/clock.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/clock.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/hostcall.c" "CMakeFiles/leapclock-preload.dir/preload/hostcall.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/hostcall.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/ntp.c" "CMakeFiles/leapclock-preload.dir/preload/ntp.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/ntp.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/preload.c" "CMakeFiles/leapclock-preload.dir/preload/preload.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/preload.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/sandbox.c" "CMakeFiles/leapclock-preload.dir/preload/sandbox.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/sandbox.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/timers.c" "CMakeFiles/leapclock-preload.dir/preload/timers.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/timers.c.o.d"
  "/work/wt/h23mode/.mainsrc/preload/wait.c" "CMakeFiles/leapclock-preload.dir/preload/wait.c.o" "gcc" "CMakeFiles/leapclock-preload.dir/preload/wait.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
