locals {
  m = 2
}

hash "multi_b" {
  function  = "fixed_xor"
  addr_bits = 3 * local.m
  bank_bits = local.m
}
