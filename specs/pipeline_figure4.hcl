# The scenario of Figures 4 and 5 of Gou and Gaydadjiev, "Elastic Pipeline"
# (CF'11, 001_*): two memory stages (MEM0, MEM1), warps as wide as the SIMD
# datapath (one subwarp per warp, so no PREMEM queue), one shared-memory
# port. With specs/traces/figure4.ptrace:
#
#   lsugen pipesim specs/pipeline_figure4.hcl --trace specs/traces/figure4.ptrace

elastic_pipeline "figure4_pipeline" {
  mem_stages  = 2
  warp_size   = 8
  simd_width  = 8
  shmem_ports = 1
  tag_bits    = 8
  variant     = "elastic"
}
