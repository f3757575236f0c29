hash "h" {
  function  = "bitwise_perm"
  addr_bits = 8
  bank_bits = 4
  bits      = [0, 1, 2]
}
