hash "h" {
  function    = "rap"
  w           = 4
  permutation = [0, 1, 2, 3]
  seed        = 7
}
