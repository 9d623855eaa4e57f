# Install script for directory: /work/wt/h23mode/.mainsrc

# Set the install prefix
if(NOT DEFINED CMAKE_INSTALL_PREFIX)
  set(CMAKE_INSTALL_PREFIX "/usr/local")
endif()
string(REGEX REPLACE "/$" "" CMAKE_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")

# Set the install configuration name.
if(NOT DEFINED CMAKE_INSTALL_CONFIG_NAME)
  if(BUILD_TYPE)
    string(REGEX REPLACE "^[^A-Za-z0-9_]+" ""
           CMAKE_INSTALL_CONFIG_NAME "${BUILD_TYPE}")
  else()
    set(CMAKE_INSTALL_CONFIG_NAME "RelWithDebInfo")
  endif()
  message(STATUS "Install configuration: \"${CMAKE_INSTALL_CONFIG_NAME}\"")
endif()

# Set the component getting installed.
if(NOT CMAKE_INSTALL_COMPONENT)
  if(COMPONENT)
    message(STATUS "Install component: \"${COMPONENT}\"")
    set(CMAKE_INSTALL_COMPONENT "${COMPONENT}")
  else()
    set(CMAKE_INSTALL_COMPONENT)
  endif()
endif()

# Install shared libraries without execute permission?
if(NOT DEFINED CMAKE_INSTALL_SO_NO_EXE)
  set(CMAKE_INSTALL_SO_NO_EXE "1")
endif()

# Is this installation the result of a crosscompile?
if(NOT DEFINED CMAKE_CROSSCOMPILING)
  set(CMAKE_CROSSCOMPILING "FALSE")
endif()

# Set default install directory permissions.
if(NOT DEFINED CMAKE_OBJDUMP)
  set(CMAKE_OBJDUMP "/usr/bin/objdump")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock"
         RPATH "")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/bin" TYPE EXECUTABLE FILES "/work/wt/h23mode/.mainsrc/b/leapclock")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/leapclock")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd"
         RPATH "")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/sbin" TYPE EXECUTABLE FILES "/work/wt/h23mode/.mainsrc/b/leapclockd")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/sbin/leapclockd")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so"
         RPATH "")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE SHARED_LIBRARY FILES "/work/wt/h23mode/.mainsrc/b/libleapclock-preload.so")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock-preload.so")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  foreach(file
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so.0.2.0"
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so.1"
      )
    if(EXISTS "${file}" AND
       NOT IS_SYMLINK "${file}")
      file(RPATH_CHECK
           FILE "${file}"
           RPATH "")
    endif()
  endforeach()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE SHARED_LIBRARY FILES
    "/work/wt/h23mode/.mainsrc/b/libleapclock.so.0.2.0"
    "/work/wt/h23mode/.mainsrc/b/libleapclock.so.1"
    )
  foreach(file
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so.0.2.0"
      "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so.1"
      )
    if(EXISTS "${file}" AND
       NOT IS_SYMLINK "${file}")
      if(CMAKE_INSTALL_DO_STRIP)
        execute_process(COMMAND "/usr/bin/strip" "${file}")
      endif()
    endif()
  endforeach()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so")
    file(RPATH_CHECK
         FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so"
         RPATH "")
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE SHARED_LIBRARY FILES "/work/wt/h23mode/.mainsrc/b/libleapclock.so")
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so" AND
     NOT IS_SYMLINK "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so")
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND "/usr/bin/strip" "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libleapclock.so")
    endif()
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib" TYPE STATIC_LIBRARY FILES "/work/wt/h23mode/.mainsrc/b/libleapclock.a")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/include" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/include/leapclock.h")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  if(EXISTS "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock/leapclockTargets.cmake")
    file(DIFFERENT _cmake_export_file_changed FILES
         "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock/leapclockTargets.cmake"
         "/work/wt/h23mode/.mainsrc/b/CMakeFiles/Export/694bcb59ec26d13c4442e2a1e5c5c957/leapclockTargets.cmake")
    if(_cmake_export_file_changed)
      file(GLOB _cmake_old_config_files "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock/leapclockTargets-*.cmake")
      if(_cmake_old_config_files)
        string(REPLACE ";" ", " _cmake_old_config_files_text "${_cmake_old_config_files}")
        message(STATUS "Old export file \"$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock/leapclockTargets.cmake\" will be replaced.  Removing files [${_cmake_old_config_files_text}].")
        unset(_cmake_old_config_files_text)
        file(REMOVE ${_cmake_old_config_files})
      endif()
      unset(_cmake_old_config_files)
    endif()
    unset(_cmake_export_file_changed)
  endif()
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/b/CMakeFiles/Export/694bcb59ec26d13c4442e2a1e5c5c957/leapclockTargets.cmake")
  if(CMAKE_INSTALL_CONFIG_NAME MATCHES "^([Rr][Ee][Ll][Ww][Ii][Tt][Hh][Dd][Ee][Bb][Ii][Nn][Ff][Oo])$")
    file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/b/CMakeFiles/Export/694bcb59ec26d13c4442e2a1e5c5c957/leapclockTargets-relwithdebinfo.cmake")
  endif()
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/cmake/leapclock" TYPE FILE FILES
    "/work/wt/h23mode/.mainsrc/b/leapclockConfig.cmake"
    "/work/wt/h23mode/.mainsrc/b/leapclockConfigVersion.cmake"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/pkgconfig" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/b/leapclock.pc")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man1" TYPE FILE FILES
    "/work/wt/h23mode/.mainsrc/docs/leapclock-convert.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-now.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-run.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-server-stats.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-simulate.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-smear.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-status.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock-table.1"
    "/work/wt/h23mode/.mainsrc/docs/leapclock.1"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man5" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/docs/leapclockd.conf.5")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man3" TYPE FILE FILES
    "/work/wt/h23mode/.mainsrc/docs/leapclock.3"
    "/work/wt/h23mode/.mainsrc/docs/leapclock_clock.3"
    "/work/wt/h23mode/.mainsrc/docs/leapclock_convert.3"
    "/work/wt/h23mode/.mainsrc/docs/leapclock_leaptable.3"
    "/work/wt/h23mode/.mainsrc/docs/leapclock_smear.3"
    "/work/wt/h23mode/.mainsrc/docs/leapclock_timer.3"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man3" TYPE FILE FILES
    "/work/wt/h23mode/.mainsrc/b/man3/lc_strerror.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_error_format.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_clock_name.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_clock_from_name.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_default.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timeline_info.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_gettime.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_now_ns.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_gettime_utc_tm.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_update.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_settime.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_clock_was_set_seq.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_adjtimex.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_adjtimex_unprivileged.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_config_init.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_new.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_free.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_counter.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_table.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_leap_source.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_host_status.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_next_leap.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_gettime_bounds.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tk_bounds_info.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_new_sim.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_new_system.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_new_tsc.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_new_best.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_free.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_read.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_freq.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_kind.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_counter_name.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_sim_advance.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_sim_set_true_ns.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_sim_true_ns.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_sim_true_ns_at.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tai_from_utc.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_utc_from_tai.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tai_from_unix.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_unix_from_tai.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_gps_from_tai.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tai_from_gps.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_ntp_from_unix_ns.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_unix_ns_from_ntp.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_days_from_civil.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_civil_from_days.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tm_from_unix.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_tm_to_utc.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_utc_to_tm.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_utc_check.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_iso8601_parse.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_iso8601_parse_range.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_range_check.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_iso8601_format.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_iso8601_format_scale.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_new.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_free.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_reset_builtin.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_load_file.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_load_buffer.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_load_system.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_load_system_report.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_search_notable.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_search_format.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_info.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_expired.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_count.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_get.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_tai_utc.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_tai_utc_at_tai.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_leap_at.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_next.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_leaptable_prev.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_preset.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_preset_from.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_preset_names.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_validate.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_validate_from.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_offset.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_rate_ppm.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_window_dir.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_smear_peak_ppm.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_new.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_free.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_timekeeper.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_reserve.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_count.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_init.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_start.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_start_ns.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_stop.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_active.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_remaining.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_deadline.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_overrun.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_data.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_timer_clock.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_next_deadline.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_expire.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_run_sim.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_run.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_stop.3"
    "/work/wt/h23mode/.mainsrc/b/man3/lc_loop_fd.3"
    )
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man8" TYPE FILE FILES "/work/wt/h23mode/.mainsrc/docs/leapclockd.8")
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/python3/dist-packages" TYPE DIRECTORY FILES "/work/wt/h23mode/.mainsrc/python/leapclock" FILES_MATCHING REGEX "/[^/]*\\.py$" REGEX "/\\_\\_pycache\\_\\_$" EXCLUDE)
endif()

if(CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified" OR NOT CMAKE_INSTALL_COMPONENT)
  
    set(LC_SBINDIR "sbin")
    if(NOT IS_ABSOLUTE "${LC_SBINDIR}")
      set(LC_SBINDIR "${CMAKE_INSTALL_PREFIX}/${LC_SBINDIR}")
    endif()
    configure_file("/work/wt/h23mode/.mainsrc/docs/leapclockd.service.in"
      "/work/wt/h23mode/.mainsrc/b/install-unit/leapclockd.service" @ONLY)
    file(INSTALL "/work/wt/h23mode/.mainsrc/b/install-unit/leapclockd.service"
      DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
  
endif()

if(CMAKE_INSTALL_COMPONENT)
  set(CMAKE_INSTALL_MANIFEST "install_manifest_${CMAKE_INSTALL_COMPONENT}.txt")
else()
  set(CMAKE_INSTALL_MANIFEST "install_manifest.txt")
endif()

string(REPLACE ";" "\n" CMAKE_INSTALL_MANIFEST_CONTENT
       "${CMAKE_INSTALL_MANIFEST_FILES}")
file(WRITE "/work/wt/h23mode/.mainsrc/b/${CMAKE_INSTALL_MANIFEST}"
     "${CMAKE_INSTALL_MANIFEST_CONTENT}")
