warp_ready_mask "sets" {
  warp_contexts = 65
  history_sets  = 100
  history_ways  = 9
  pc_bits       = 14
  warp_size     = 32
  simd_width    = 8
}

warp_ready_mask "pc" {
  warp_contexts = 8
  history_sets  = 256
  history_ways  = 2
  pc_bits       = 6
  warp_size     = 1
  simd_width    = 1
}

warp_ready_mask "missing" {
  warp_contexts = 8
  history_sets  = 1
  pc_bits       = 6
  warp_size     = 32
  simd_width    = 8
}
