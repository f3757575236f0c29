# The elastic pipeline back end of Gou and Gaydadjiev (CF'11, 001_*): the
# paper's configuration (Table 3: 4 memory stages, warp 32, SIMD width 8, so
# N = 3) in all three variants, Figure 6's small one, and the bank-conflict
# aware warp ready logic with the paper's history cache (2 ways x 256 sets,
# 14-bit PCs: 704 bytes of tags and degrees).

locals {
  tag_bits = 10 # enough to name a warp (5 bits) and a subwarp slot
}

elastic_pipeline "ep_elastic_m4" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = local.tag_bits
  variant    = "elastic"
}

elastic_pipeline "ep_unified_m4" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = local.tag_bits
  variant    = "baseline_unified"
}

elastic_pipeline "ep_split_m4" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = local.tag_bits
  variant    = "baseline_split"
}

# Figure 6: two memory stages and a one-entry PREMEM queue, dual-ported
# shared memory.
elastic_pipeline "ep_elastic_fig6" {
  mem_stages  = 2
  warp_size   = 16
  simd_width  = 8
  shmem_ports = 2
  tag_bits    = 6
}

warp_ready_mask "wrm_paper" {
  warp_contexts = 32
  history_sets  = 256
  history_ways  = 2
  pc_bits       = 14
  warp_size     = 32
  simd_width    = 8
}

# A small cache with four ways, so the lockstep runs exercise replacement.
warp_ready_mask "wrm_4way" {
  warp_contexts = 8
  history_sets  = 4
  history_ways  = 4
  pc_bits       = 6
  warp_size     = 16
  simd_width    = 4
  shmem_ports   = 2
}
