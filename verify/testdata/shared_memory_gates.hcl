# A small shared memory whose gate-level module runs on every engine
# (verify TestSharedMemory_GateLevelOnEveryEngine): the example memories'
# gate-level modules are too large for a Verilator build in the suite.
hash "tiny" {
  function  = "fixed_xor"
  addr_bits = 6
  bank_bits = 2
}
shared_memory "sm_tiny" {
  lanes   = 4
  bytes   = 256
  hash    = hash.tiny
  widths  = [32, 64]
  atomics = ["add", "cas"]
}
