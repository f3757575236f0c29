hash "h" {
  function  = "add"
  addr_bits = 8
  bank_bits = 5
}
