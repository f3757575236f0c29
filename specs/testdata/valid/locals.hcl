# Locals in any order, across blocks, with the expression functions.
locals {
  bank_bits = local.sets_bits - 1 # defined below
  wide      = local.addr_bits > 16
}

locals {
  sets      = 24
  sets_bits = clog2(local.sets)        # 5
  addr_bits = max(12, min(20, 3 * 5))  # 15
  shift     = floor(7 / 2) + ceil(0.5) # 4
  offset    = abs(-1)
  rows      = [for i in range(local.bank_bits) : [i, i + local.shift]]
  count     = length(local.rows)
  name      = "bitwise_${"xor"}"
}

hash "from_locals" {
  function  = local.name
  addr_bits = local.addr_bits
  bank_bits = local.count
  bits      = local.rows
}

hash "conditional" {
  function  = local.wide ? "bitvector_xor" : "bitvector_perm"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k         = local.offset + local.shift
}
