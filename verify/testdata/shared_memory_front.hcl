# The pipelined front end of clock_fo4 (two instruction buffers, each lane
# word's bank and row computed as the instruction is taken) over every
# kind of row and bank the shared memory has: the hash kinds of
# shared_memory_hashes.hcl, 8-byte banks, a configurable bitvector_xor,
# banks = N, and the Fermi-like memory (verify TestSharedMemory_FrontEnd).
# clock_fo4 is loose: the check of the period has tests of its own.
hash "ip_fe" {
  function   = "ipoly"
  addr_bits  = 9
  polynomial = [3, 1, 0]
}
shared_memory "sm_ip_fe" {
  clock_fo4 = 1000
  lanes = 8
  bytes = 2048
  hash  = hash.ip_fe
  widths = [32, 128]
}
hash "bx_fe" {
  function  = "bitwise_xor"
  addr_bits = 9
  bank_bits = 3
  bits      = [[0, 5], [4, 7], [2, 2]]
}
shared_memory "sm_bx_fe" {
  clock_fo4 = 1000
  lanes = 8
  bytes = 2048
  hash  = hash.bx_fe
  bank_bytes = 8
}
hash "ad_fe" {
  function  = "add"
  addr_bits = 9
  bank_bits = 3
}
shared_memory "sm_ad_fe" {
  clock_fo4 = 1000
  lanes = 4
  bytes = 2048
  hash  = hash.ad_fe
  widths = [64]
  atomics = []
}
hash "rp_fe" {
  function = "rap"
  w        = 8
  seed     = 3
}
shared_memory "sm_rp_fe" {
  clock_fo4 = 1000
  lanes = 8
  bytes = 256
  hash  = hash.rp_fe
}
hash "pv_fe" {
  function     = "bitvector_perm"
  addr_bits    = 9
  bank_bits    = 3
  configurable = true
}
shared_memory "sm_pv_fe" {
  clock_fo4 = 1000
  lanes = 8
  bytes = 2048
  hash  = hash.pv_fe
}
hash "fx_fe" {
  function  = "bitvector_xor"
  addr_bits = 9
  bank_bits = 3
  configurable = true
}
shared_memory "sm_fx_fe" {
  clock_fo4 = 1000
  lanes   = 8
  bytes   = 2048
  hash    = hash.fx_fe
  widths  = [32, 64]
  atomics = ["add", "cas", "exch"]
}
shared_memory "sm_wide_fe" {
  clock_fo4  = 1000
  lanes      = 32
  bytes      = 8192
  bank_bytes = 8
  banks      = 8
  widths     = [32, 64]
  atomics    = []
}
shared_memory "sm_small_fe" {
  clock_fo4 = 1000
  lanes     = 8
  bytes     = 512
  banks     = 8
}
hash "fermi_fe" {
  function  = "xor_matrix"
  addr_bits = 14
  bank_bits = 5
  bits      = [[0, 5, 10], [1, 6, 11], [2, 7, 12], [3, 8, 13], [4, 9]]
}
shared_memory "sm_fermi_fe" {
  clock_fo4 = 1000
  lanes     = 32
  bytes     = 48 * 1024
  hash      = hash.fermi_fe
}
