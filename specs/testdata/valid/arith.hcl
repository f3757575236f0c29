# Fixed XOR and add hashes.
hash "fx" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 4
}

hash "add_default" {
  function  = "add"
  addr_bits = 10
  bank_bits = 5
}

hash "add_cla" {
  function  = "add"
  addr_bits = 20
  bank_bits = 3
  adder     = "cla"
}
