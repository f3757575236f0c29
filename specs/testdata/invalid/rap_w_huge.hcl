hash "h" {
  function = "rap"
  w        = pow2(40)
  seed     = 1
}
