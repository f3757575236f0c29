hash "h" {
  function = "rap"
  scheme   = "RAS"
  w        = 4
  shifts   = [0, 1, 4]
}
