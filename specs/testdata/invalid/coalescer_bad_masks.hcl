coalescer "a" {
  structure   = "all_to_all"
  lanes       = 8
  addr_bits   = 16
  active_mask = 1
  requests    = "yes"
}

monotonicity_detector "d" {
  lanes       = 8
  addr_bits   = 16
  active_mask = true
  requests    = true
}
