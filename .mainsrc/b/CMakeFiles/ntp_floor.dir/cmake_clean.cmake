file(REMOVE_RECURSE
  "CMakeFiles/ntp_floor.dir/bench/ntp_floor.c.o"
  "CMakeFiles/ntp_floor.dir/bench/ntp_floor.c.o.d"
  "ntp_floor"
  "ntp_floor.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ntp_floor.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
