hash "h" {
  function  = "xor_matrix"
  addr_bits = 16
  bank_bits = 4
  bits      = [range(100000000), [1], [2], [3]]
}
