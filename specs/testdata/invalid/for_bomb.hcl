locals {
  r = range(4096)
}

hash "h" {
  function  = "bitwise_perm"
  addr_bits = 16
  bank_bits = 1
  bits      = [length([for i in local.r : [for j in local.r : [for k in local.r : k]]])]
}
