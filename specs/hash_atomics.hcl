# Hashed bank addressing for shared-memory atomics, from "Simulation and
# Architecture Improvements of Atomic Operations on GPU Scratchpad Memory"
# (002_*): the fixed XOR hash (LSB ^ MSB) and the ADD hash (LSB + MSB) over
# 5 bank bits of a 14-bit word address. The same hashes serve the lock
# addressing with their own bits.

hash "atomic_xor" {
  function  = "fixed_xor"
  addr_bits = 14
  bank_bits = 5
}

hash "atomic_add_ripple" {
  function  = "add"
  addr_bits = 14
  bank_bits = 5
  adder     = "ripple"
}

hash "atomic_add_cla" {
  function  = "add"
  addr_bits = 14
  bank_bits = 5
  adder     = "cla"
}

# The fixed hash of 000_* (bank = addr[0..4] ^ addr[5..9]) written as an
# XOR matrix, and an IPOLY-style hash: bank = addr mod (x^5 + x^2 + 1) over
# GF(2), each bank bit the XOR of the address bits whose power of x has
# that bit in its residue.
hash "fixed_xor_matrix" {
  function  = "xor_matrix"
  addr_bits = 14
  bank_bits = 5
  bits      = [for b in range(5) : [b, b + 5]]
}

hash "ipoly_x5_x2_1" {
  function  = "xor_matrix"
  addr_bits = 14
  bank_bits = 5
  bits = [
    [0, 5, 8, 10, 11],
    [1, 6, 9, 11, 12],
    [2, 5, 7, 8, 11, 12, 13],
    [3, 6, 8, 9, 12, 13],
    [4, 7, 9, 10, 13],
  ]
}
