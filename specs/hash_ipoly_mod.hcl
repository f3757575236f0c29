# IPOLY by polynomial and bank counts that are not powers of two.
#
# GPGPU-Sim's ipoly_hash_function (src/gpgpu-sim/hashing.cc) for 16, 32 and
# 64 banks: the bank is the line address, as a polynomial over GF(2),
# modulo x^4 + x + 1, x^5 + x^2 + 1 and x^6 + x + 1, over the address bits
# its equations read (17, 20 and 25 of them: index bits and higher_bits).
hash "ipoly16_gpgpusim" {
  function   = "ipoly"
  addr_bits  = 17
  polynomial = [4, 1, 0]
}

hash "ipoly32_gpgpusim" {
  function   = "ipoly"
  addr_bits  = 20
  polynomial = [5, 2, 0]
}

hash "ipoly64_gpgpusim" {
  function   = "ipoly"
  addr_bits  = 25
  polynomial = [6, 1, 0]
}

# bank = addr mod banks, index = addr / banks. 3 = 2^2 - 1 and 31 = 2^5 - 1
# fold m-bit chunks with end-around carry; 24 = 2^3 * 3 passes 3 bits
# through and folds the rest; 17 is not 2^m - 1 but divides 2^8 - 1 = 255:
# folded by 255, the 8-bit residue then compared with 17, 34, ..., 238.
hash "mod3" {
  function  = "mod"
  addr_bits = 12
  banks     = 3
}

hash "mod17" {
  function  = "mod"
  addr_bits = 12
  banks     = 17
}

hash "mod24" {
  function  = "mod"
  addr_bits = 12
  banks     = 24
}

hash "mod31" {
  function  = "mod"
  addr_bits = 12
  banks     = 31
}
