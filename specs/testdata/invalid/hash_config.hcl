hash "not_configurable" {
  function  = "bitvector_perm"
  addr_bits = 16
  bank_bits = 4
  k         = 2
  config    = "register"
}

hash "typo" {
  function     = "bitvector_xor"
  configurable = true
  addr_bits    = 16
  bank_bits    = 4
  config       = "registers"
}

hash "not_a_string" {
  function     = "bitwise_perm"
  configurable = true
  addr_bits    = 16
  bank_bits    = 4
  config       = 1
}

hash "function_not_configurable" {
  function     = "fixed_xor"
  configurable = true
  config       = "register"
  addr_bits    = 16
  bank_bits    = 4
}
