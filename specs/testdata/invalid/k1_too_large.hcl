hash "h" {
  function  = "bitvector_xor"
  addr_bits = 16
  bank_bits = 4
  k1        = 13
  k2        = 0
  mask      = 15
}
