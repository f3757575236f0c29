hash "h" {
  function  = "bitvector_perm"
  addr_bits = 32
  k         = 0
}
