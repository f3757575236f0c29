hash "h" {
  function  = "bitvector_xor"
  addr_bits = 16
  bank_bits = 4
  k1        = 0
  k2        = 8
  mask      = 16
}
