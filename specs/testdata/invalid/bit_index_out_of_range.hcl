hash "h" {
  function  = "bitwise_perm"
  addr_bits = 16
  bank_bits = 4
  bits      = [0, 1, 16, 3]
}
