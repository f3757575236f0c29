hash "h" {
  function  = "rap"
  w         = 4
  bank_bits = 2
  seed      = 7
}
