hash "h" {
  function  = "fixed_xor"
  addr_bits = var.addr_bits
  bank_bits = 4
}
