
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/h23mode/.mainsrc/tests/progs/step_writer.c" "CMakeFiles/lc_step_writer.dir/tests/progs/step_writer.c.o" "gcc" "CMakeFiles/lc_step_writer.dir/tests/progs/step_writer.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/h23mode/.mainsrc/b/CMakeFiles/leapclock_static.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
