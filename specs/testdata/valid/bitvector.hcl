# Bit-vector hashes, constant and configurable.
locals {
  banks = 16
  m     = log2(local.banks)
}

hash "bv_perm" {
  function  = "bitvector_perm"
  addr_bits = 12
  bank_bits = local.m
  k         = 2
}

hash "bv_perm_cfg" {
  function     = "bitvector_perm"
  addr_bits    = 12
  bank_bits    = 4
  configurable = true
}

hash "bv_xor" {
  function  = "bitvector_xor"
  addr_bits = 16
  bank_bits = local.m
  k1        = 0
  k2        = local.m * 2
  mask      = pow2(local.m) - 1
}

hash "bv_xor_cfg" {
  function     = "bitvector_xor"
  addr_bits    = 16
  bank_bits    = 4
  configurable = true
}

# configurable = false is the default and may be written.
hash "bv_xor_partial" {
  function     = "bitvector_xor"
  addr_bits    = 10
  bank_bits    = 3
  configurable = false
  k1           = 7
  k2           = 3
  mask         = 5
}
