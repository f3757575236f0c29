hash "same" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 4
}

hash "same" {
  function  = "add"
  addr_bits = 8
  bank_bits = 4
}
