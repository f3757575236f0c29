# Configurable hash units (000_* §4.5): one piece of hardware serves every
# configuration of its class, loaded at kernel launch on the cfg_* inputs.
# Fermi-sized: 14 word-address bits, 32 banks.

locals {
  addr_bits = 14
  bank_bits = 5
}

hash "cfg_bitvector_perm" {
  function     = "bitvector_perm"
  addr_bits    = local.addr_bits
  bank_bits    = local.bank_bits
  configurable = true
}

hash "cfg_bitvector_xor" {
  function     = "bitvector_xor"
  addr_bits    = local.addr_bits
  bank_bits    = local.bank_bits
  configurable = true
}

hash "cfg_bitwise_perm" {
  function     = "bitwise_perm"
  addr_bits    = local.addr_bits
  bank_bits    = local.bank_bits
  configurable = true
}

hash "cfg_bitwise_xor" {
  function     = "bitwise_xor"
  addr_bits    = local.addr_bits
  bank_bits    = local.bank_bits
  configurable = true
}

# RAP with the permutation loaded at run time (w fields of log2(w) bits).
hash "cfg_rap_w32" {
  function     = "rap"
  w            = 32
  configurable = true
}

# bitvector_xor with its configuration in registers (config = "register"):
# written through cfg_we_i once, at kernel launch, and held while the kernel
# runs; clk, rst and cfg_we_i join the ports.
hash "cfg_bitvector_xor_reg" {
  function     = "bitvector_xor"
  addr_bits    = local.addr_bits
  bank_bits    = local.bank_bits
  configurable = true
  config       = "register"
}
