hash "h" {
  function = "rap"
  scheme   = "P3"
  w        = 4
  seed     = 1
}
