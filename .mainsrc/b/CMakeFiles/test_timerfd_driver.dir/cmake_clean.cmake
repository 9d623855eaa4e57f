file(REMOVE_RECURSE
  "CMakeFiles/test_timerfd_driver.dir/tests/test_timerfd_driver.c.o"
  "CMakeFiles/test_timerfd_driver.dir/tests/test_timerfd_driver.c.o.d"
  "test_timerfd_driver"
  "test_timerfd_driver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_timerfd_driver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
