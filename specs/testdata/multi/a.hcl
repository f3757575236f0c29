locals {
  m = log2(local.banks) # banks is in b.hcl
}

hash "multi_a" {
  function  = "bitvector_perm"
  addr_bits = 10
  bank_bits = local.m
  k         = 0
}
