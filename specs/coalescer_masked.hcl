# Coalescers and a detector with active lanes (active_mask) and request
# generation (requests): only the lanes whose active_i bit is set take
# part, and the coalescers number their memory requests in lane order.
# The 8-lane units match specs/coalescer_small.hcl (16-bit addresses,
# 128-byte blocks of 4-byte words), the 32-lane ones
# specs/coalescer_thesis.hcl (32-bit addresses, cla4 subtractors), so
# `lsugen timing` shows what the options cost. Requests at 32 lanes only on
# the all-to-all coalescer: the formal proof of their compaction network is
# the slowest part of `verify --formal` on these units (minutes).

coalescer "masked_a2a_8" {
  structure   = "all_to_all"
  lanes       = 8
  addr_bits   = 16
  block_bits  = 5
  active_mask = true
  requests    = true
}

coalescer "masked_nbr_8" {
  structure   = "neighbor"
  lanes       = 8
  addr_bits   = 16
  block_bits  = 5
  active_mask = true
  requests    = true
}

coalescer "masked_spec_8" {
  structure   = "speculative"
  lanes       = 8
  addr_bits   = 16
  block_bits  = 5
  adder       = "prefix"
  active_mask = true
  requests    = true
}

# Requests without active_mask: every lane is active.
coalescer "requests_a2a_8" {
  structure  = "all_to_all"
  lanes      = 8
  addr_bits  = 16
  block_bits = 5
  requests   = true
}

coalescer "masked_a2a_32" {
  structure   = "all_to_all"
  lanes       = 32
  addr_bits   = 32
  active_mask = true
  requests    = true
}

coalescer "masked_nbr_32" {
  structure   = "neighbor"
  lanes       = 32
  addr_bits   = 32
  active_mask = true
}

coalescer "masked_spec_32" {
  structure   = "speculative"
  lanes       = 32
  addr_bits   = 32
  active_mask = true
}

monotonicity_detector "masked_monotonic_32" {
  lanes       = 32
  addr_bits   = 32
  adder       = "cla4"
  active_mask = true
}
