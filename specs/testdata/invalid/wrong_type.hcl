hash "h" {
  function  = "bitvector_perm"
  addr_bits = "32"
  bank_bits = 4
  k         = 0
}
