hash "piped" {
  function  = "bitvector_perm"
  addr_bits = 8
  bank_bits = 3
  k         = 0
  clock_fo4 = 20
}

shared_memory "uses_piped" {
  lanes = 8
  bytes = 1024
  hash  = hash.piped
}

hash "registered" {
  function     = "bitvector_perm"
  addr_bits    = 8
  bank_bits    = 3
  configurable = true
  config       = "register"
}

shared_memory "uses_registered" {
  lanes = 8
  bytes = 1024
  hash  = hash.registered
}

hash "cfg_bitwise" {
  function     = "bitwise_xor"
  addr_bits    = 8
  bank_bits    = 3
  configurable = true
}

shared_memory "uses_cfg_bitwise" {
  lanes = 8
  bytes = 1024
  hash  = hash.cfg_bitwise
}

hash "wide_mod" {
  function  = "mod"
  addr_bits = 10
  banks     = 100
}

shared_memory "too_many_banks" {
  lanes = 8
  bytes = 1600
  hash  = hash.wide_mod
}

hash "mod12" {
  function  = "mod"
  addr_bits = 8
  banks     = 12
}

shared_memory "not_a_multiple" {
  lanes = 8
  bytes = 1024
  hash  = hash.mod12
}

hash "narrow_mod" {
  function  = "mod"
  addr_bits = 6
  banks     = 8
}

shared_memory "mod_reads_too_little" {
  lanes = 8
  bytes = 1024
  hash  = hash.narrow_mod
}

hash "six_bits" {
  function  = "bitvector_perm"
  addr_bits = 8
  bank_bits = 6
  k         = 0
}

shared_memory "fewer_words_than_banks" {
  lanes = 8
  bytes = 128
  hash  = hash.six_bits
}

# The hash reads address bits 8 and 9, above the 8-bit word addresses of
# a 1 KB memory: bank bit 2 is always 0.
hash "high_bits" {
  function  = "bitwise_perm"
  addr_bits = 10
  bank_bits = 3
  bits      = [0, 1, 9]
}

shared_memory "unreachable" {
  lanes = 8
  bytes = 1024
  hash  = hash.high_bits
}

shared_memory "wrong_kind" {
  lanes = 8
  bytes = 1024
  hash  = shared_memory.unreachable
}
