hash "h" {
  function     = "rap"
  scheme       = "3P"
  w            = 4
  addr_bits    = 6
  permutations = [[0, 1, 2, 3], [0, 1, 1, 3]]
}
