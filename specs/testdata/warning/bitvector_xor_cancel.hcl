hash "h" {
  function  = "bitvector_xor"
  addr_bits = 16
  bank_bits = 4
  k1        = 4
  k2        = 4
  mask      = 3
}
