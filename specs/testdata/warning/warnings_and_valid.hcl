# A unit with a warning is still a valid unit; the others are unaffected.
hash "fine" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 4
}

hash "lossy" {
  function  = "bitwise_perm"
  addr_bits = 8
  bank_bits = 2
  bits      = [for b in range(2) : 5]
}
