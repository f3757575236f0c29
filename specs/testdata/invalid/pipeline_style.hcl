coalescer "style_alone" {
  structure = "neighbor"
  lanes     = 8
  addr_bits = 16
  pipeline  = "retime"
}
hash "bad_style" {
  function  = "bitvector_perm"
  addr_bits = 16
  bank_bits = 4
  k         = 2
  clock_fo4 = 40
  pipeline  = "retimed"
}
coalescer "speculative_retime" {
  structure = "speculative"
  lanes     = 8
  addr_bits = 16
  clock_fo4 = 20
  pipeline  = "retime"
}
