hash "h" {
  function  = "bitwise_xor"
  addr_bits = 16
  bank_bits = 3
  bits      = [[0, 8], [1, 9], [8, 0]]
}
