# libleapclock-preload.so (preload/*.c, built by the LC_PRELOAD_SOURCES block
# of CMakeLists.txt) and `leapclock run`. Include after that block:
#   include(${PROJECT_SOURCE_DIR}/cmake/preload.cmake OPTIONAL)
if(TARGET leapclock-preload)
  # Only the interposed calls are exported (preload/exports.map): the
  # library objects linked into the shim stay private to it.
  target_compile_options(leapclock-preload PRIVATE -fvisibility=hidden)
  target_link_options(leapclock-preload PRIVATE
    "LINKER:--version-script=${PROJECT_SOURCE_DIR}/preload/exports.map"
    "LINKER:-z,now")
  set_property(TARGET leapclock-preload APPEND PROPERTY
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/preload/exports.map)
endif()
if(TARGET leapclock_cli)
  # Where `leapclock run` finds the shim once installed (after looking next
  # to its own binary, the build tree).
  target_compile_definitions(leapclock_cli PRIVATE
    LC_PRELOAD_INSTALL_PATH="${CMAKE_INSTALL_FULL_LIBDIR}/libleapclock-preload.so")
endif()
