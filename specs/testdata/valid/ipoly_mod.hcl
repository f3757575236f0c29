# The hand-written IPOLY matrix of specs/hash_atomics.hcl (x^5 + x^2 + 1
# over 14 bits), now by polynomial, exponents in any order.
hash "ipoly_x5_x2_1" {
  function   = "ipoly"
  addr_bits  = 14
  polynomial = [0, 2, 5]
}

hash "ipoly_parity" {
  function   = "ipoly"
  addr_bits  = 3
  polynomial = [1, 0]
}

hash "mod24" {
  function  = "mod"
  addr_bits = 12
  banks     = 24
}

hash "mod_all_words" {
  function  = "mod"
  addr_bits = 10
  banks     = 1024
}
