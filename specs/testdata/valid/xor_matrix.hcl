# XOR matrices, written out and computed.
locals {
  m = 4
}

hash "xm_literal" {
  function  = "xor_matrix"
  addr_bits = 12
  bank_bits = 3
  bits = [
    [0, 3, 6, 9],
    [1, 4],
    concat([2], [5, 8], [11]),
  ]
}

hash "xm_for" {
  function  = "xor_matrix"
  addr_bits = 16
  bank_bits = local.m
  bits      = [for b in range(local.m) : [for i in range(b, 16, local.m) : i]]
}

hash "xm_flatten" {
  function  = "xor_matrix"
  addr_bits = 8
  bank_bits = 2
  bits      = [flatten([[0], [2, [4]]]), [1]]
}
