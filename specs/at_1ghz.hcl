# An 8-lane all-to-all coalescer at 1 GHz (docs/clocks.md). The period in
# time units is converted with the FO4 of the library given with
# --liberty, whose own model then places the registers (timing_mode
# "liberty", stages that meet the period in OpenSTA); without a library,
# with the default library's FO4 (sky130_fd_sc_hd, 86.09 ps) and the sized
# textbook model.
coalescer "coalesce_a2a_8_1ghz" {
  structure  = "all_to_all"
  lanes      = 8
  addr_bits  = 16
  block_bits = log2(128 / 4)
  clock      = "1GHz"
}
