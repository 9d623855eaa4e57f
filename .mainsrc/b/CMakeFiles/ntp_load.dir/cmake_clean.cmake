file(REMOVE_RECURSE
  "CMakeFiles/ntp_load.dir/bench/ntp_load.c.o"
  "CMakeFiles/ntp_load.dir/bench/ntp_load.c.o.d"
  "ntp_load"
  "ntp_load.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ntp_load.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
