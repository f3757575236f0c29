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

# Schemes for arrays larger than w x w (004_* section VII).
hash "rap_3p" {
  function     = "rap"
  scheme       = "3P"
  w            = 4
  permutations = [[2, 0, 3, 1], [1, 3, 0, 2], [3, 2, 1, 0]]
}

hash "rap_3p_seed" {
  function  = "rap"
  scheme    = "3P"
  w         = 8
  addr_bits = 14
  seed      = 42
}

hash "rap_r1p" {
  function    = "rap"
  scheme      = "R1P"
  w           = 4
  permutation = [2, 0, 3, 1]
}

hash "rap_ras" {
  function = "rap"
  scheme   = "RAS"
  w        = 4
  shifts   = [3, 3, 0, 1, 2, 2, 2, 0]
}

hash "rap_ras_rows" {
  function = "rap"
  scheme   = "RAS"
  w        = 4
  rows     = 64
  seed     = 9
}

hash "rap_1p_written" {
  function    = "rap"
  scheme      = "1P"
  w           = 2
  permutation = [1, 0]
}
