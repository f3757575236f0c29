hash "h" {
  function  = "bitvector_prem"
  addr_bits = 16
  bank_bits = 4
  k         = 0
}
