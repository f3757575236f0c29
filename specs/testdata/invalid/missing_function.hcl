hash "h" {
  addr_bits = 32
  bank_bits = 4
}
