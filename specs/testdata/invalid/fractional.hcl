hash "h" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = 9 / 2
}
