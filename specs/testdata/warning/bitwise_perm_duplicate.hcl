hash "h" {
  function  = "bitwise_perm"
  addr_bits = 16
  bank_bits = 4
  bits      = [3, 7, 3, 15]
}
