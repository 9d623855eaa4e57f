file(REMOVE_RECURSE
  "CMakeFiles/test_ntp_packet.dir/tests/test_ntp_packet.c.o"
  "CMakeFiles/test_ntp_packet.dir/tests/test_ntp_packet.c.o.d"
  "test_ntp_packet"
  "test_ntp_packet.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_ntp_packet.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
