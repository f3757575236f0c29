# The largest accepted warp ready mask (docs/limits.md): 64 warp contexts
# (MaxWarpContexts), a history cache of 4096 sets (MaxHistorySets) x 8 ways
# (MaxHistoryWays), 32-bit PCs (MaxPCBits), 1024-thread warps of 64 lanes.

warp_ready_mask "lim_wrm" {
  warp_contexts = 64
  history_sets  = 4096
  history_ways  = 8
  pc_bits       = 32
  warp_size     = 1024
  simd_width    = 64
}
