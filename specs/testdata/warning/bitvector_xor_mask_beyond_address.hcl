hash "h" {
  function  = "bitvector_xor"
  addr_bits = 12
  bank_bits = 4
  k1        = 0
  k2        = 10
  mask      = 15
}
