monotonicity_detector "too_fast" {
  lanes     = 8
  addr_bits = 16
  clock_fo4 = 2
}
coalescer "not_a_number" {
  structure = "neighbor"
  lanes     = 8
  addr_bits = 16
  clock_fo4 = "fast"
}
coalescer "mode_alone" {
  structure   = "neighbor"
  lanes       = 8
  addr_bits   = 16
  timing_mode = "sized"
}
hash "bad_mode" {
  function    = "bitvector_perm"
  addr_bits   = 16
  bank_bits   = 4
  k           = 2
  clock_fo4   = 40
  timing_mode = "fast"
}
hash "clocked_already" {
  function     = "bitvector_perm"
  addr_bits    = 16
  bank_bits    = 4
  configurable = true
  config       = "register"
  clock_fo4    = 40
}
bank_arbiter "serializing" {
  lanes     = 4
  addr_bits = 16
  bank_bits = 2
  serialize = true
  clock_fo4 = 40
}
hash "pipelined_hash" {
  function  = "bitvector_perm"
  addr_bits = 16
  bank_bits = 3
  k         = 2
  clock_fo4 = 20
}
bank_arbiter "uses_it" {
  lanes     = 4
  addr_bits = 16
  hash      = hash.pipelined_hash
}
