# Bitwise permutation and XOR hashes.
hash "bw_perm" {
  function  = "bitwise_perm"
  addr_bits = 16
  bank_bits = 4
  bits      = [3, 7, 11, 15]
}

hash "bw_perm_range" {
  function  = "bitwise_perm"
  addr_bits = 8
  bank_bits = 3
  bits      = reverse(range(2, 8, 2))
}

hash "bw_perm_cfg" {
  function     = "bitwise_perm"
  addr_bits    = 32
  bank_bits    = 5
  configurable = true
}

hash "bw_xor" {
  function  = "bitwise_xor"
  addr_bits = 12
  bank_bits = 3
  bits      = [[0, 6], [1, 1], [2, 8]]
}

hash "bw_xor_for" {
  function  = "bitwise_xor"
  addr_bits = 16
  bank_bits = 4
  bits      = [for b in range(4) : [b, b + 8]]
}

hash "bw_xor_cfg" {
  function     = "bitwise_xor"
  addr_bits    = 16
  bank_bits    = 4
  configurable = true
}
