locals {
  a = local.b + 1
  b = local.c * 2
  c = local.a
}

hash "h" {
  function  = "fixed_xor"
  addr_bits = 16
  bank_bits = local.a
}
