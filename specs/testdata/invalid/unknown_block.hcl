hash "ok" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 4
}

module "nope" {
}
