file(REMOVE_RECURSE
  "liblc_sim.a"
)
