# Bank-index hashes configured for CUDA kernels, from Table 5 of
# "Configurable XOR Hash Functions for Banked Scratchpad Memories in GPUs"
# (000_*): a Fermi scratchpad of 48 kB in 4-byte words has 14 word-address
# bits and 32 banks (5 bank bits). For each kernel, the bit-vector XOR
# configuration and the bitwise XOR configuration found by the Minimum
# Imbalance Heuristic. In `bits`, element b gives bank bit b; [i, i] is the
# single address bit i.

locals {
  addr_bits = 14
  bank_bits = log2(32)
}

hash "transpose_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 0
  k2        = 4
  mask      = 14
}

hash "transpose_bwxor" {
  function  = "bitwise_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [[0, 0], [4, 4], [1, 5], [2, 6], [3, 7]]
}

hash "fwt_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 0
  k2        = 2
  mask      = pow2(local.bank_bits) - 1
}

hash "fwt_bwxor" {
  function  = "bitwise_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [[0, 2], [0, 3], [0, 4], [0, 5], [1, 6]]
}

hash "lavamd_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 1
  k2        = 6
  mask      = 3
}

hash "lavamd_bwxor" {
  function  = "bitwise_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [[3, 3], [4, 4], [5, 5], [1, 6], [2, 7]]
}

hash "hist256_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 0
  k2        = 6
  mask      = 28
}

hash "hist256_bwxor" {
  function  = "bitwise_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [[4, 8], [3, 9], [2, 11], [0, 10], [1, 2]]
}

hash "reduction_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 0
  k2        = 5
  mask      = 7
}

hash "reduction_bwxor" {
  function  = "bitwise_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [[2, 7], [1, 6], [0, 5], [4, 4], [3, 3]]
}

# The bitwise permutation the Minimum Imbalance Heuristic picks for the
# transpose kernel (Table 5, "bitwise perm. Min. Imbalance").
hash "transpose_bwperm" {
  function  = "bitwise_perm"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  bits      = [0, 4, 1, 2, 3]
}

# A plain bit-vector permutation for a stride of 16 words (k = log2(16)).
hash "stride16_bvperm" {
  function  = "bitvector_perm"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k         = log2(16)
}
