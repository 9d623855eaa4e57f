#----------------------------------------------------------------
# Generated CMake target import file for configuration "RelWithDebInfo".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "leapclock::leapclock" for configuration "RelWithDebInfo"
set_property(TARGET leapclock::leapclock APPEND PROPERTY IMPORTED_CONFIGURATIONS RELWITHDEBINFO)
set_target_properties(leapclock::leapclock PROPERTIES
  IMPORTED_LOCATION_RELWITHDEBINFO "${_IMPORT_PREFIX}/lib/libleapclock.so.0.2.0"
  IMPORTED_SONAME_RELWITHDEBINFO "libleapclock.so.1"
  )

list(APPEND _cmake_import_check_targets leapclock::leapclock )
list(APPEND _cmake_import_check_files_for_leapclock::leapclock "${_IMPORT_PREFIX}/lib/libleapclock.so.0.2.0" )

# Import target "leapclock::leapclock_static" for configuration "RelWithDebInfo"
set_property(TARGET leapclock::leapclock_static APPEND PROPERTY IMPORTED_CONFIGURATIONS RELWITHDEBINFO)
set_target_properties(leapclock::leapclock_static PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELWITHDEBINFO "C"
  IMPORTED_LOCATION_RELWITHDEBINFO "${_IMPORT_PREFIX}/lib/libleapclock.a"
  )

list(APPEND _cmake_import_check_targets leapclock::leapclock_static )
list(APPEND _cmake_import_check_files_for_leapclock::leapclock_static "${_IMPORT_PREFIX}/lib/libleapclock.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
