hash "one_bank" {
  function  = "mod"
  addr_bits = 16
  banks     = 1
}

hash "too_many_banks" {
  function  = "mod"
  addr_bits = 16
  banks     = 2000
}

hash "more_banks_than_words" {
  function  = "mod"
  addr_bits = 4
  banks     = 17
}

hash "with_bank_bits" {
  function  = "mod"
  addr_bits = 16
  bank_bits = 5
  banks     = 17
}

hash "missing_banks" {
  function  = "mod"
  addr_bits = 16
}

hash "fraction" {
  function  = "mod"
  addr_bits = 16
  banks     = 3.5
}

hash "no_addr_bits" {
  function = "mod"
  banks    = 17
}

hash "configurable" {
  function     = "mod"
  addr_bits    = 16
  banks        = 17
  configurable = true
}
