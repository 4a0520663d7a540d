# A new external pointer with a NULL address and no attributes, for the hostile sweeps.
# new("externalptr") returns one shared prototype, which giving it a class (as the forged-buffer
# tests do) changes for every later caller in the process, so results would depend on which
# tests ran before.
null_pointer <- function() {
  p <- unserialize(serialize(new("externalptr"), NULL))
  attributes(p) <- NULL
  p
}
