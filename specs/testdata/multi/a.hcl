# Locals belong to their file: b.hcl declares its own m.
locals {
  m = log2(local.banks)
  banks = 8
}

hash "multi_a" {
  function  = "bitvector_perm"
  addr_bits = 10
  bank_bits = local.m
  k         = 0
}
