# Two elastic pipelines and two warp ready masks that fit both, so that
# TestFlags_EachAppliesOrIsRefused can choose a unit and a mask other than
# the first.

elastic_pipeline "walk_elastic" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = 10
}

elastic_pipeline "walk_split" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = 10
  variant    = "baseline_split"
}

warp_ready_mask "walk_mask_paper" {
  warp_contexts = 32
  history_sets  = 256
  history_ways  = 2
  pc_bits       = 14
  warp_size     = 32
  simd_width    = 8
}

warp_ready_mask "walk_mask_small" {
  warp_contexts = 32
  history_sets  = 4
  history_ways  = 1
  pc_bits       = 8
  warp_size     = 32
  simd_width    = 8
}
