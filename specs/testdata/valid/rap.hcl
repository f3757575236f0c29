# Random address permute-shift units.
hash "rap_perm" {
  function    = "rap"
  w           = 4
  permutation = [2, 0, 3, 1]
}

hash "rap_seed" {
  function  = "rap"
  w         = 32
  addr_bits = 16
  seed      = 42
  adder     = "cla"
}

hash "rap_cfg" {
  function     = "rap"
  w            = 8
  configurable = true
}

hash "rap_ripple" {
  function    = "rap"
  w           = 2
  addr_bits   = 2
  permutation = [1, 0]
  adder       = "ripple"
}
