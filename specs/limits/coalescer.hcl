# The largest accepted coalescers and monotonicity detector (docs/limits.md):
# 128 lanes (MaxLanes) of 64-bit addresses (MaxLaneAddrBits), with the
# active mask and the request outputs, the options that add logic.

coalescer "lim_coalesce_spec" {
  structure   = "speculative"
  lanes       = 128
  addr_bits   = 64
  active_mask = true
  requests    = true
}

coalescer "lim_coalesce_a2a" {
  structure   = "all_to_all"
  lanes       = 128
  addr_bits   = 64
  active_mask = true
  requests    = true
}

coalescer "lim_coalesce_nbr" {
  structure   = "neighbor"
  lanes       = 128
  addr_bits   = 64
  active_mask = true
  requests    = true
}

monotonicity_detector "lim_monotonic" {
  lanes       = 128
  addr_bits   = 64
  active_mask = true
}
