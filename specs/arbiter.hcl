# Bank arbiters: the bank-conflict degree of a warp's shared-memory access
# (what the elastic pipeline's in_degree_i and the warp ready mask of
# 001_* consume) and conflict-free grants. A SIMD-width (8-lane) access
# to 8 banks in four forms, and a 16-lane serializing arbiter on a
# configurable bank hash (000_* §4.5: configured at kernel launch).

# bank = address mod 8, lanes on one address served together.
bank_arbiter "arb_mod_8" {
  lanes     = 8
  addr_bits = 10
  bank_bits = 3
}

# Atomics: lanes on one address are not merged (002_*'s position
# conflicts), so the degree counts lanes per bank.
bank_arbiter "arb_atomic_8" {
  lanes     = 8
  addr_bits = 10
  bank_bits = 3
  broadcast = false
}

hash "arb_xor_3" {
  function  = "xor_matrix"
  addr_bits = 10
  bank_bits = 3
  bits      = [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
}

# The same access with hashed banks, granted over degree cycles.
bank_arbiter "arb_serial_8" {
  lanes     = 8
  addr_bits = 10
  hash      = hash.arb_xor_3
  serialize = true
}

hash "arb_cfg_bvxor" {
  function     = "bitvector_xor"
  addr_bits    = 12
  bank_bits    = 5
  configurable = true
}

# 16 lanes, 32 banks, the bank hash's configuration on hash_cfg_* ports.
bank_arbiter "arb_cfg_16" {
  lanes     = 16
  addr_bits = 12
  hash      = hash.arb_cfg_bvxor
  serialize = true
}
