hash "h" {
  function     = "xor_matrix"
  configurable = true
  addr_bits    = 8
  bank_bits    = 1
  bits         = [[0, 1]]
}
