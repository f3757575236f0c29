hash "with_bank_bits" {
  function   = "ipoly"
  addr_bits  = 16
  bank_bits  = 5
  polynomial = [5, 2, 0]
}

hash "missing_polynomial" {
  function  = "ipoly"
  addr_bits = 16
}

hash "configurable" {
  function     = "ipoly"
  addr_bits    = 16
  configurable = true
  polynomial   = [5, 2, 0]
}

hash "with_bits" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [5, 2, 0]
  bits       = [[0], [1], [2], [3], [4]]
}

hash "typo" {
  function   = "ipolly"
  addr_bits  = 16
  polynomial = [5, 2, 0]
}
