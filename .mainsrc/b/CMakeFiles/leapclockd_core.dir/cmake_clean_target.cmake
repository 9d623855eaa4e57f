file(REMOVE_RECURSE
  "libleapclockd_core.a"
)
