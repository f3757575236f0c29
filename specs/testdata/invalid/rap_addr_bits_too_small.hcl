hash "h" {
  function  = "rap"
  w         = 16
  addr_bits = 6
  seed      = 7
}
