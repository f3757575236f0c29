elastic_pipeline "deep" {
  mem_stages = 17
  warp_size  = 48
  simd_width = 8
  tag_bits   = 0
}

elastic_pipeline "wide_simd" {
  mem_stages  = 4
  warp_size   = 8
  simd_width  = 16
  shmem_ports = 3
  tag_bits    = 8
  variant     = "elastik"
}

elastic_pipeline "many_subwarps" {
  mem_stages = 2
  warp_size  = 1024
  simd_width = 8
  tag_bits   = 8
}

elastic_pipeline "ports" {
  mem_stages  = 2
  warp_size   = 8
  simd_width  = 4
  shmem_ports = 8
  tag_bits    = 8
}
