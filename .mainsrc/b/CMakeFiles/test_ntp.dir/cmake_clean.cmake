file(REMOVE_RECURSE
  "CMakeFiles/test_ntp.dir/tests/test_ntp.c.o"
  "CMakeFiles/test_ntp.dir/tests/test_ntp.c.o.d"
  "test_ntp"
  "test_ntp.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_ntp.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
