hash "h" {
  function  = "fixed_xor"
  addr_bits = "${1e99999999}"
  bank_bits = 4
}
