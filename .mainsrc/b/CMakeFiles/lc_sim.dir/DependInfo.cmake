
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/src/sim.c" "CMakeFiles/lc_sim.dir/src/sim.c.o" "gcc" "CMakeFiles/lc_sim.dir/src/sim.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/sim_exact.c" "CMakeFiles/lc_sim.dir/src/sim_exact.c.o" "gcc" "CMakeFiles/lc_sim.dir/src/sim_exact.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/sim_kernel.c" "CMakeFiles/lc_sim.dir/src/sim_kernel.c.o" "gcc" "CMakeFiles/lc_sim.dir/src/sim_kernel.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/sim_scenario.c" "CMakeFiles/lc_sim.dir/src/sim_scenario.c.o" "gcc" "CMakeFiles/lc_sim.dir/src/sim_scenario.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/sim_trace.c" "CMakeFiles/lc_sim.dir/src/sim_trace.c.o" "gcc" "CMakeFiles/lc_sim.dir/src/sim_trace.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/h23mode/.mainsrc/b/CMakeFiles/leapclock_static.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
