hash "h" {
  function  = "add"
  addr_bits = 8
  bank_bits = 4
  adder     = "carry_save"
}
