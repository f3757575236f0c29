# The coalescing circuits of "Exploiting intra-warp address monotonicity for
# fast memory coalescing in GPUs" (003_*), for NVIDIA's 32-thread warp and
# AMD's 64-thread wavefront with 32-bit addresses: the all-to-all
# comparator, the neighbor-to-neighbor comparator, the monotonicity
# detector on 33-bit hierarchical carry-lookahead subtractors, and the
# speculative coalescer that combines them.

coalescer "coalesce_a2a_32" {
  structure = "all_to_all"
  lanes     = 32
  addr_bits = 32
}

coalescer "coalesce_a2a_64" {
  structure = "all_to_all"
  lanes     = 64
  addr_bits = 32
}

coalescer "coalesce_nbr_32" {
  structure = "neighbor"
  lanes     = 32
  addr_bits = 32
}

coalescer "coalesce_nbr_64" {
  structure = "neighbor"
  lanes     = 64
  addr_bits = 32
}

monotonicity_detector "monotonic_32" {
  lanes     = 32
  addr_bits = 32
  adder     = "cla4"
}

monotonicity_detector "monotonic_64" {
  lanes     = 64
  addr_bits = 32
  adder     = "cla4"
}

coalescer "coalesce_spec_32" {
  structure = "speculative"
  lanes     = 32
  addr_bits = 32
}

coalescer "coalesce_spec_64" {
  structure = "speculative"
  lanes     = 64
  addr_bits = 32
}
