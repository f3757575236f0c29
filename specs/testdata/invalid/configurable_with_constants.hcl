hash "h" {
  function     = "bitvector_xor"
  configurable = true
  addr_bits    = 16
  bank_bits    = 4
  k1           = 0
  mask         = 3
}
