coalescer "too_many_lanes" {
  structure = "all_to_all"
  lanes     = 256
  addr_bits = 32
}

coalescer "one_lane" {
  structure  = "neighbor"
  lanes      = 1
  addr_bits  = 65
  block_bits = 0
}

monotonicity_detector "huge_warp" {
  lanes     = 100000
  addr_bits = 32
}
