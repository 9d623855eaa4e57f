file(REMOVE_RECURSE
  "CMakeFiles/lc_step_writer.dir/tests/progs/step_writer.c.o"
  "CMakeFiles/lc_step_writer.dir/tests/progs/step_writer.c.o.d"
  "lc_step_writer"
  "lc_step_writer.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_step_writer.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
