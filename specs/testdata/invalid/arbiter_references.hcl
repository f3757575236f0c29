hash "h12" {
  function  = "bitwise_xor"
  addr_bits = 12
  bank_bits = 2
  bits      = [[0, 5], [1, 6]]
}

coalescer "c" {
  structure = "neighbor"
  lanes     = 4
  addr_bits = 8
}

bank_arbiter "undeclared" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.h21
}

bank_arbiter "wrong_kind" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.c
  lock_hash = coalescer.c
}

bank_arbiter "too_narrow" {
  lanes     = 8
  addr_bits = 10
  hash      = hash.h12
}

bank_arbiter "quoted" {
  lanes     = 8
  addr_bits = 12
  hash      = "h12"
}

bank_arbiter "both" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.h12
  bank_bits = 2
}

bank_arbiter "neither" {
  lanes     = 65
  addr_bits = 12
}

hash "broken" {
  function  = "xor_matrix"
  addr_bits = 12
  bank_bits = 2
  bits      = [[0], [99]]
}

bank_arbiter "uses_broken" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.broken
}

bank_arbiter "names_a_coalescer" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.c
}

hash "reg_cfg" {
  function     = "bitvector_perm"
  addr_bits    = 12
  bank_bits    = 2
  configurable = true
  config       = "register"
}

bank_arbiter "registered_hash" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.reg_cfg
}
