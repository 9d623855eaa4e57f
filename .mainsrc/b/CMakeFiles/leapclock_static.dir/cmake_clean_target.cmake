file(REMOVE_RECURSE
  "libleapclock.a"
)
