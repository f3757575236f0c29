hash "h" {
  function    = "rap"
  w           = 4
  permutation = [0, 1, 4, 2]
}
