locals {
  banks = 8
}

hash "multi_b" {
  function  = "fixed_xor"
  addr_bits = 2 * local.m
  bank_bits = local.m
}
