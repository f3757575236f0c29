hash "h" {
  function  = "xor_matrix"
  addr_bits = 12
  bank_bits = 3
  bits = [
    [0, 4],
    [4, 8],
    [0, 8], # = row 0 XOR row 1
  ]
}
