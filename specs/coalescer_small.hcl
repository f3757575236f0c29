# Eight-lane coalescers and detectors at cache-block granularity: with
# 128-byte blocks of 4-byte words, the low 5 bits of a word address are the
# offset inside the block. One detector per subtractor architecture.

coalescer "coalesce_a2a_8" {
  structure  = "all_to_all"
  lanes      = 8
  addr_bits  = 16
  block_bits = log2(128 / 4)
}

coalescer "coalesce_nbr_8" {
  structure  = "neighbor"
  lanes      = 8
  addr_bits  = 16
  block_bits = 5
}

coalescer "coalesce_spec_8" {
  structure  = "speculative"
  lanes      = 8
  addr_bits  = 16
  block_bits = 5
  adder      = "prefix"
}

monotonicity_detector "monotonic_8_cla4" {
  lanes     = 8
  addr_bits = 16
  adder     = "cla4"
}

monotonicity_detector "monotonic_8_ripple" {
  lanes     = 8
  addr_bits = 16
  adder     = "ripple"
}

monotonicity_detector "monotonic_8_prefix" {
  lanes     = 8
  addr_bits = 16
  adder     = "prefix"
}

monotonicity_detector "monotonic_8_cla" {
  lanes     = 8
  addr_bits = 16
  adder     = "cla"
}
