
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_convert.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_convert.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_convert.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_kernel_test.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_kernel_test.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_kernel_test.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_now.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_now.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_now.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_run.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_run.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_run.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_server_stats.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_server_stats.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_server_stats.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_simulate.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_simulate.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_simulate.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_smear.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_smear.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_smear.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_status.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_status.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_status.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_table.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_table.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_table.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/cmd_top.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_top.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/cmd_top.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/decimal.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/decimal.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/decimal.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/main.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/main.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/main.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/simprint.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/simprint.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/simprint.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/simtrace.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/simtrace.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/simtrace.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/smear_chart.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/smear_chart.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/smear_chart.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclock/smearconv.c" "CMakeFiles/leapclock_cli.dir/tools/leapclock/smearconv.c.o" "gcc" "CMakeFiles/leapclock_cli.dir/tools/leapclock/smearconv.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/h23mode/.mainsrc/b/CMakeFiles/lc_sim.dir/DependInfo.cmake"
  "/work/wt/h23mode/.mainsrc/b/CMakeFiles/leapclock_static.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
