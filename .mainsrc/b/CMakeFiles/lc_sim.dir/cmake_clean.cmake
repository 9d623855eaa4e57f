file(REMOVE_RECURSE
  "CMakeFiles/lc_sim.dir/src/sim.c.o"
  "CMakeFiles/lc_sim.dir/src/sim.c.o.d"
  "CMakeFiles/lc_sim.dir/src/sim_exact.c.o"
  "CMakeFiles/lc_sim.dir/src/sim_exact.c.o.d"
  "CMakeFiles/lc_sim.dir/src/sim_kernel.c.o"
  "CMakeFiles/lc_sim.dir/src/sim_kernel.c.o.d"
  "CMakeFiles/lc_sim.dir/src/sim_scenario.c.o"
  "CMakeFiles/lc_sim.dir/src/sim_scenario.c.o.d"
  "CMakeFiles/lc_sim.dir/src/sim_trace.c.o"
  "CMakeFiles/lc_sim.dir/src/sim_trace.c.o.d"
  "liblc_sim.a"
  "liblc_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/lc_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
