coalescer "a" {
  structure  = "all-to-all"
  lanes      = 32
  addr_bits  = 32
  block_bits = 32
}

coalescer "b" {
  structure = "neighbor"
  lanes     = 32
  addr_bits = 32
  adder     = "cla4"
}

monotonicity_detector "c" {
  lanes     = 32
  addr_bits = 32
  adder     = "carry_select"
  width     = 4
}
