# Hashed lock addressing for shared-memory atomics, from "Simulation and
# Architecture Improvements of Atomic Operations on GPU Scratchpad Memory"
# (002_*), for `lsugen conflicts --lock-hash specs/locks_002.hcl:lock_xor`.
#
# Fermi's memory lock unit has 1024 locks; the lock of a word address is
# its bits 9:0 (byte-address bits 11:2, Fig. 2), so addresses 1024 words
# apart share a lock. The paper hashes the lock address as it hashes the
# bank: the XOR hash combines the least significant bits with the five
# bits above them (LSB ^ MSB), five XOR gates for the locks beside five
# for the banks. Here lock bits 4:0 are word-address bits 4:0 XOR bits
# 14:10 and lock bits 9:5 are address bits 9:5, so lock = (addr mod 1024)
# ^ (addr >> 10) for the 2^15 words the address covers (the 48 KB
# scratchpad's 12288 words need 14 of them).
#
# Its bank hash is specs/hash_atomics.hcl's atomic_xor (bank = addr[4:0] ^
# addr[9:5]). Which lock bits the paper XORs is in its Table I, not in the
# text; with XOR into lock bits 9:5 instead, the Figure 5 degrees are the
# same (docs/tools.md).

hash "lock_xor" {
  function  = "xor_matrix"
  addr_bits = 15
  bank_bits = 10
  bits = [
    [0, 10],
    [1, 11],
    [2, 12],
    [3, 13],
    [4, 14],
    [5],
    [6],
    [7],
    [8],
    [9],
  ]
}

# The shared-memory arbiter of a Fermi-like SM with both hashes of 002_*:
# 32 lanes of 15-bit word addresses (2^15 words cover the 48 KB
# scratchpad), banks from the bank hash (fermi_bank_xor computes
# hash_atomics.hcl's atomic_xor, bank = addr[4:0] ^ addr[9:5]) and 1024
# locks from lock_xor. Its degree_o is what `lsugen conflicts --hash
# specs/locks_002.hcl:fermi_bank_xor` reports per access, its
# lock_degree_o what --lock-hash specs/locks_002.hcl:lock_xor reports; a
# test checks both on every trace in specs/traces/.

hash "fermi_bank_xor" {
  function  = "fixed_xor"
  addr_bits = 10
  bank_bits = 5
}

bank_arbiter "fermi_arbiter" {
  lanes     = 32
  addr_bits = 15
  hash      = hash.fermi_bank_xor
  lock_hash = hash.lock_xor
}
