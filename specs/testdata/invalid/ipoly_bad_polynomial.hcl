hash "no_constant" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [5, 2]
}

hash "repeated" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [5, 2, 5, 0]
}

hash "exponent_range" {
  function   = "ipoly"
  addr_bits  = 32
  polynomial = [17, 3, -1, 0]
}

hash "empty" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = []
}

hash "constant_only" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [0]
}

hash "degree_above_addr_bits" {
  function   = "ipoly"
  addr_bits  = 4
  polynomial = [5, 2, 0]
}

hash "not_a_list" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = 37
}

hash "fraction" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [4, 1.5, 0]
}
