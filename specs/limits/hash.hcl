# The largest accepted hash units of each function (docs/limits.md):
# 64-bit addresses (MaxAddrBits), 16 bank bits (MaxBankBits), rap's w =
# 1024 (MaxRAPWidth), mod's 1024 banks (MaxModBanks), ipoly of degree 16.

hash "lim_bitvector_xor_cfg" {
  function     = "bitvector_xor"
  addr_bits    = 64
  bank_bits    = 16
  configurable = true
}

hash "lim_bitwise_xor_cfg" {
  function     = "bitwise_xor"
  addr_bits    = 64
  bank_bits    = 16
  configurable = true
}

hash "lim_bitwise_xor_reg" {
  function     = "bitwise_xor"
  addr_bits    = 64
  bank_bits    = 16
  configurable = true
  config       = "register"
}

hash "lim_xor_matrix" {
  function  = "xor_matrix"
  addr_bits = 64
  bank_bits = 16
  bits      = [for b in range(16) : [for i in range(64) : i if i % 16 != b]]
}

hash "lim_add" {
  function  = "add"
  addr_bits = 64
  bank_bits = 16
  adder     = "cla"
}

hash "lim_rap" {
  function  = "rap"
  w         = 1024
  addr_bits = 64
  seed      = 1
  adder     = "cla"
}

hash "lim_rap_cfg" {
  function     = "rap"
  w            = 1024
  addr_bits    = 64
  configurable = true
}

hash "lim_ipoly" {
  function   = "ipoly"
  addr_bits  = 64
  polynomial = [16, 5, 3, 2, 0]
}

hash "lim_mod" {
  function  = "mod"
  addr_bits = 64
  banks     = 1021
}
