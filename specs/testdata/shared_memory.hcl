# Shared-memory examples (issue 29).

# Fermi-like: 32 lanes, 48 KB in 32 four-byte banks. The bank folds the
# 14 word-address bits into 5 by XOR, so power-of-two strides up to 32
# words spread over every bank; the row is the word address >> 5.
hash "fermi_bank_xor" {
  function  = "xor_matrix"
  addr_bits = 14
  bank_bits = 5
  bits      = [[0, 5, 10], [1, 6, 11], [2, 7, 12], [3, 8, 13], [4, 9]]
}

shared_memory "shmem_fermi" {
  lanes = 32
  bytes = 48 * 1024
  hash  = hash.fermi_bank_xor
}

# 16 lanes over 17 banks (a prime count: every stride but multiples of 17
# is conflict-free); 17 KB so that each bank holds 256 words.
hash "mod17" {
  function  = "mod"
  addr_bits = 13
  banks     = 17
}

shared_memory "shmem_mod17" {
  lanes = 16
  bytes = 17 * 1024
  hash  = hash.mod17
}

# 32 lanes over 32 eight-byte banks (the 8-byte bank mode): a 64-bit warp
# access of consecutive words takes one pass.
shared_memory "shmem_wide" {
  lanes      = 32
  bytes      = 64 * 1024
  bank_bytes = 8
  banks      = 32
}

# A configurable bitvector XOR hash: its configuration ports are the
# memory's hash_cfg_* inputs, held while the storage is in use.
hash "cfg_bvxor" {
  function     = "bitvector_xor"
  addr_bits    = 12
  bank_bits    = 5
  configurable = true
}

shared_memory "shmem_cfg" {
  lanes   = 32
  bytes   = 16 * 1024
  hash    = hash.cfg_bvxor
  atomics = ["add", "cas", "exch"]
}

# Small enough for exhaustive corner tests: 8 lanes, 512 bytes, 8 banks.
shared_memory "shmem_small" {
  lanes = 8
  bytes = 512
  banks = 8
}
