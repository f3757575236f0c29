# x^4 + 1 = (x + 1)^4 over GF(2).
hash "h" {
  function   = "ipoly"
  addr_bits  = 16
  polynomial = [4, 0]
}
