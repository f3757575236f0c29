# The pipeline study of Gou and Gaydadjiev, "Elastic Pipeline" (CF'11,
# 001_*), for `lsugen pipesim`: the core of Table 3 (4 memory stages, 32
# threads per warp, 8-wide SIMD, one access per bank per cycle: N = 3
# subwarps in the PREMEM queue) and the bank-conflict aware warp ready
# logic of Figure 7 with the paper's history cache (256 sets x 2 ways,
# 14-bit PCs) for 1024 threads per core = 32 warp contexts.
#
#   lsugen pipesim specs/pipeline_study.hcl --preset aes_encrypt
#
# pipesim runs all three variants; `variant` only matters to gen, timing
# and verify.

elastic_pipeline "study_pipeline" {
  mem_stages  = 4
  warp_size   = 32
  simd_width  = 8
  shmem_ports = 1
  tag_bits    = 16
  variant     = "elastic"
}

warp_ready_mask "study_mask" {
  warp_contexts = 32
  history_sets  = 256
  history_ways  = 2
  pc_bits       = 14
  warp_size     = 32
  simd_width    = 8
  shmem_ports   = 1
}
