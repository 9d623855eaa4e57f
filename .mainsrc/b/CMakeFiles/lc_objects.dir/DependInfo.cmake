
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/src/bounds.c" "CMakeFiles/lc_objects.dir/src/bounds.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/bounds.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/civil.c" "CMakeFiles/lc_objects.dir/src/civil.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/civil.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/counter.c" "CMakeFiles/lc_objects.dir/src/counter.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/counter.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/error.c" "CMakeFiles/lc_objects.dir/src/error.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/error.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/hostclock.c" "CMakeFiles/lc_objects.dir/src/hostclock.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/hostclock.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/hostfollow.c" "CMakeFiles/lc_objects.dir/src/hostfollow.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/hostfollow.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leapfile.c" "CMakeFiles/lc_objects.dir/src/leapfile.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leapfile.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leapfile_iers.c" "CMakeFiles/lc_objects.dir/src/leapfile_iers.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leapfile_iers.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leapfile_system.c" "CMakeFiles/lc_objects.dir/src/leapfile_system.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leapfile_system.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leapfile_text.c" "CMakeFiles/lc_objects.dir/src/leapfile_text.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leapfile_text.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leapfile_tz.c" "CMakeFiles/lc_objects.dir/src/leapfile_tz.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leapfile_tz.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/leaptable.c" "CMakeFiles/lc_objects.dir/src/leaptable.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/leaptable.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/loop.c" "CMakeFiles/lc_objects.dir/src/loop.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/loop.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/ntp.c" "CMakeFiles/lc_objects.dir/src/ntp.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/ntp.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/sha1.c" "CMakeFiles/lc_objects.dir/src/sha1.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/sha1.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/smear.c" "CMakeFiles/lc_objects.dir/src/smear.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/smear.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/smear_preset.c" "CMakeFiles/lc_objects.dir/src/smear_preset.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/smear_preset.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/smear_shape.c" "CMakeFiles/lc_objects.dir/src/smear_shape.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/smear_shape.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/smear_table.c" "CMakeFiles/lc_objects.dir/src/smear_table.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/smear_table.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timekeeper.c" "CMakeFiles/lc_objects.dir/src/timekeeper.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timekeeper.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timeline_default.c" "CMakeFiles/lc_objects.dir/src/timeline_default.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timeline_default.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timeline_page.c" "CMakeFiles/lc_objects.dir/src/timeline_page.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timeline_page.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timeline_reader.c" "CMakeFiles/lc_objects.dir/src/timeline_reader.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timeline_reader.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timeline_writer.c" "CMakeFiles/lc_objects.dir/src/timeline_writer.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timeline_writer.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timer.c" "CMakeFiles/lc_objects.dir/src/timer.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timer.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/timer_heap.c" "CMakeFiles/lc_objects.dir/src/timer_heap.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/timer_heap.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_follow.c" "CMakeFiles/lc_objects.dir/src/tk_follow.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_follow.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_inverse.c" "CMakeFiles/lc_objects.dir/src/tk_inverse.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_inverse.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_new.c" "CMakeFiles/lc_objects.dir/src/tk_new.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_new.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_schedule.c" "CMakeFiles/lc_objects.dir/src/tk_schedule.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_schedule.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_set.c" "CMakeFiles/lc_objects.dir/src/tk_set.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_set.c.o.d"
  "/work/wt/h23mode/.mainsrc/src/tk_sls.c" "CMakeFiles/lc_objects.dir/src/tk_sls.c.o" "gcc" "CMakeFiles/lc_objects.dir/src/tk_sls.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
