hash "h" {
  function  = "rap"
  scheme    = "RAS"
  w         = 4
  rows      = 48
  seed      = 3
}
