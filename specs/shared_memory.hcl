# Shared memories (docs/shared-memory.md): bank storage behind a hash,
# crossbars, 32/64/128-bit accesses, broadcast and atomics at the banks,
# one pass per cycle. These are sized for the test suite (every engine
# and the formal proof run on each); specs/large/ holds a 48 KB Fermi-like
# memory.

# 16 lanes over 17 banks (a prime count: every stride but multiples of 17
# is conflict-free), 4352 bytes so that each bank holds 64 words. The row
# of a word is its quotient by 17 (the mod hash's index_o).
hash "shm_mod17" {
  function  = "mod"
  addr_bits = 11
  banks     = 17
}

shared_memory "shmem_mod17" {
  lanes   = 16
  bytes   = 17 * 256
  hash    = hash.shm_mod17
  widths  = [32]
  atomics = ["add", "umax"]
}

# 32 lanes over 8 eight-byte banks (the 8-byte bank mode of 000_*): two
# 32-bit lanes share a bank word, and a 64-bit lane takes one.
shared_memory "shmem_wide" {
  lanes      = 32
  bytes      = 8192
  bank_bytes = 8
  banks      = 8
  widths     = [32, 64]
  atomics    = []
}

# A configurable bitvector XOR hash: its configuration ports are the
# memory's hash_cfg_* inputs, held while the storage is in use. The row
# of a word is the word address without the bank bits at cfg_k1_i.
hash "shm_cfg_bvxor" {
  function     = "bitvector_xor"
  addr_bits    = 9
  bank_bits    = 3
  configurable = true
}

shared_memory "shmem_cfg" {
  lanes   = 8
  bytes   = 2048
  hash    = hash.shm_cfg_bvxor
  widths  = [32, 64]
  atomics = ["add", "cas", "exch"]
}

# Small enough for exhaustive corner tests: 8 lanes, 512 bytes, 8 banks,
# every width and atomic.
shared_memory "shmem_small" {
  lanes = 8
  bytes = 512
  banks = 8
}

# shmem_mod17 with the pipelined front end of clock_fo4: two instruction
# buffers served in turn, req_ready_o from registers, each lane word's
# bank and row (the remainder and quotient by 17) computed as the
# instruction is taken, and the slot pairs on one bank or word compared a
# phase ahead, so that the bank stage's loop holds neither hash nor
# comparator. Its slowest register-to-register path falls from 70.1 to
# 50.0 FO4 in the sized model, now the request's way through the hash of
# 17; the latency stays 3 (docs/shared-memory.md).
shared_memory "shmem_mod17_fe" {
  lanes       = 16
  bytes       = 17 * 256
  hash        = hash.shm_mod17
  widths      = [32]
  atomics     = ["add", "umax"]
  clock_fo4   = 51
  timing_mode = "sized"
}
