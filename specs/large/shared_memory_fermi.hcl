# A Fermi-like shared memory: 32 lanes, 48 KB in 32 four-byte banks, every
# width and atomic. The bank folds the 14 word-address bits into 5 by XOR,
# so power-of-two strides up to 32 words spread over every bank; the row is
# the word address >> 5. 256,551 gates: the suite checks it on every
# engine and proves it RTL = gates in tests of its own, apart from the
# example units of specs/ (whose Verilog is kept as golden files).
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
