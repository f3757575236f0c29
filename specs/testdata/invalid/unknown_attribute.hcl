hash "h" {
  function  = "bitvector_perm"
  addr_bits = 16
  bank_bits = 4
  k         = 0
  bnak_bits = 4
}
