# Combinational units generated as pipelines at a clock period (clock_fo4,
# docs/pipelining.md). The same units without clock_fo4 are in the other
# example specs; `lsugen gen --clock-fo4 P` pipelines any of them. Their
# periods are in the textbook model's FO4, and they say so (timing_mode):
# a run given --liberty keeps them and warns where a stage would miss the
# period in the library (docs/clocks.md).

# The unsized model (gates as built, no buffer trees) places the cuts.
monotonicity_detector "monotonic_8_c16u" {
  lanes       = 8
  addr_bits   = 32
  adder       = "ripple"
  clock_fo4   = 16
  timing_mode = "unsized"
}

# The speculative coalescer at a clock is a variable-latency unit: a
# monotonic warp is answered from the detector + neighbor path, the others
# from the all-to-all (docs/pipelining.md).
coalescer "coalesce_spec_8_c20" {
  structure   = "speculative"
  lanes       = 8
  addr_bits   = 32
  block_bits  = 5
  requests    = true
  clock_fo4   = 20
  timing_mode = "sized"
}

hash "bank_hash_c6" {
  function    = "bitvector_xor"
  addr_bits   = 32
  bank_bits   = 5
  k1          = 0
  k2          = 5
  mask        = 31
  clock_fo4   = 6
  timing_mode = "sized"
}

bank_arbiter "arbiter_8_c10" {
  lanes       = 8
  addr_bits   = 32
  bank_bits   = 4
  broadcast   = true
  clock_fo4   = 10
  timing_mode = "sized"
}

# For a flow that retimes: the combinational arbiter, its bank hash an
# instance per lane, followed by the register stages that placing them in
# the logic at 10 FO4 would take (pipeline = "retime").
hash "arb_xor_rt" {
  function  = "xor_matrix"
  addr_bits = 10
  bank_bits = 3
  bits      = [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
}

bank_arbiter "arbiter_4_c10_retime" {
  lanes       = 4
  addr_bits   = 10
  hash        = hash.arb_xor_rt
  clock_fo4   = 10
  timing_mode = "sized"
  pipeline    = "retime"
}
