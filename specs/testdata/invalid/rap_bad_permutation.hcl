hash "h" {
  function    = "rap"
  w           = 4
  permutation = [0, 2, 3, 2]
}
