# Errors accumulate: every one of these is reported.
hash "h" {
  function  = "bitvector_xor"
  addr_bits = 16
  bank_bits = 4
  k1        = -1
  k2        = 16
  mask      = 2.5
  adder     = "cla"
}

hash "reg" {
  function  = "bitwise_xor"
  addr_bits = 8
  bank_bits = 2
  bits      = [[0, 1, 2], ["3", 4]]
}
