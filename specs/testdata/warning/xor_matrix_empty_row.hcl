hash "h" {
  function  = "xor_matrix"
  addr_bits = 8
  bank_bits = 2
  bits      = [[0, 1], []]
}
