# Corner configurations of the sequential units: one memory stage, one
# SIMD lane, four ports, three and eight ways, no tag bits, two sets.
elastic_pipeline "e1" {
  mem_stages = 1
  warp_size = 8
  simd_width = 8
  tag_bits = 3
}
elastic_pipeline "u1" {
  mem_stages = 1
  warp_size = 8
  simd_width = 8
  tag_bits = 3
  variant = "baseline_unified"
}
elastic_pipeline "s1" {
  mem_stages = 1
  warp_size = 16
  simd_width = 4
  tag_bits = 3
  variant = "baseline_split"
}
elastic_pipeline "e1n" {
  mem_stages = 1
  warp_size = 16
  simd_width = 2
  shmem_ports = 2
  tag_bits = 5
}
elastic_pipeline "e3p4" {
  mem_stages = 3
  warp_size = 64
  simd_width = 16
  shmem_ports = 4
  tag_bits = 7
}
elastic_pipeline "esw1" {
  mem_stages = 2
  warp_size = 4
  simd_width = 1
  tag_bits = 2
}
warp_ready_mask "w3" {
  warp_contexts = 5
  history_sets = 2
  history_ways = 3
  pc_bits = 3
  warp_size = 8
  simd_width = 2
  shmem_ports = 2
}
warp_ready_mask "w1tb0" {
  warp_contexts = 64
  history_sets = 8
  history_ways = 1
  pc_bits = 3
  warp_size = 4
  simd_width = 4
}
warp_ready_mask "wp4" {
  warp_contexts = 3
  history_sets = 4
  history_ways = 5
  pc_bits = 5
  warp_size = 16
  simd_width = 4
  shmem_ports = 4
}
warp_ready_mask "w8" {
  warp_contexts = 2
  history_sets = 2
  history_ways = 8
  pc_bits = 4
  warp_size = 2
  simd_width = 1
}
