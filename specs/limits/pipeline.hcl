# The largest accepted elastic pipeline (docs/limits.md): 16 memory stages
# (MaxMemStages), 16 subwarps (a 15-entry PREMEM queue, the deepest that
# powers of two allow under MaxQueueDepth), 64-bit tags (MaxTagBits), one
# shared-memory port.

elastic_pipeline "lim_pipeline" {
  mem_stages = 16
  warp_size  = 1024
  simd_width = 64
  tag_bits   = 64
  variant    = "elastic"
}
