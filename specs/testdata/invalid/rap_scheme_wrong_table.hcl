hash "h" {
  function    = "rap"
  scheme      = "3P"
  w           = 4
  permutation = [0, 1, 2, 3]
}
