# Shared memories over the hash kinds the examples leave out (verify TestSharedMemory_EveryRowKind).
hash "ip" {
  function   = "ipoly"
  addr_bits  = 9
  polynomial = [3, 1, 0]
}
shared_memory "sm_ip" {
  lanes = 8
  bytes = 2048
  hash  = hash.ip
  widths = [32, 128]
}
hash "bx" {
  function  = "bitwise_xor"
  addr_bits = 9
  bank_bits = 3
  bits      = [[0, 5], [4, 7], [2, 2]]
}
shared_memory "sm_bx" {
  lanes = 8
  bytes = 2048
  hash  = hash.bx
  bank_bytes = 8
}
hash "ad" {
  function  = "add"
  addr_bits = 9
  bank_bits = 3
}
shared_memory "sm_ad" {
  lanes = 4
  bytes = 2048
  hash  = hash.ad
  widths = [64]
  atomics = []
}
hash "rp" {
  function = "rap"
  w        = 8
  seed     = 3
}
shared_memory "sm_rp" {
  lanes = 8
  bytes = 256
  hash  = hash.rp
}
hash "pv" {
  function     = "bitvector_perm"
  addr_bits    = 9
  bank_bits    = 3
  configurable = true
}
shared_memory "sm_pv" {
  lanes = 8
  bytes = 2048
  hash  = hash.pv
}
