hash "h" {
  function = "rap"
  w        = 12
  seed     = 1
}
