hash "h" {
  function     = "rap"
  scheme       = "R1P"
  w            = 4
  configurable = true
}
