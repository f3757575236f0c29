hash "no_unit" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = 4
  clock     = "1000"
}
hash "both" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = 4
  clock_fo4 = 20
  clock     = "1GHz"
}
hash "too_fast" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = 4
  clock     = "20GHz"
}
hash "negative" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = 4
  clock     = "-1ns"
}
hash "bad_mode" {
  function    = "fixed_xor"
  addr_bits   = 16
  bank_bits   = 4
  clock       = "1GHz"
  timing_mode = "libery"
}
coalescer "mode_alone" {
  structure   = "neighbor"
  lanes       = 8
  addr_bits   = 16
  timing_mode = "liberty"
}
