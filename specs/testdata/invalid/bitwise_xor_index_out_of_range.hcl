hash "h" {
  function  = "bitwise_xor"
  addr_bits = 8
  bank_bits = 2
  bits      = [[0, 4], [1, -5]]
}
