
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/auth.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/auth.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/auth.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/clock.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/clock.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/clock.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/clockbound.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/clockbound.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/clockbound.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/config.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/config.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/config.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/config_listen.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/config_listen.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/config_listen.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/keys.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/keys.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/keys.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/metrics.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/metrics.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/metrics.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/ntp_packet.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/ntp_packet.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/ntp_packet.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/nts.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/nts_ef.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts_ef.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts_ef.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/nts_ke_records.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts_ke_records.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/nts_ke_records.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/ntske.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/ntske.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/ntske.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/privsep.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/privsep.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/privsep.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/sdnotify.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/sdnotify.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/sdnotify.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/server.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/server_answer.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server_answer.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server_answer.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/server_stats.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server_stats.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/server_stats.c.o.d"
  "/work/wt/h23mode/.mainsrc/tools/leapclockd/xleave.c" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/xleave.c.o" "gcc" "CMakeFiles/leapclockd_core.dir/tools/leapclockd/xleave.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/h23mode/.mainsrc/b/CMakeFiles/leapclock_static.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
