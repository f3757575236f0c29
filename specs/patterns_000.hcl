# Access patterns of §3.2 of "Configurable XOR hash functions for banked
# scratchpad memories in GPUs", in the linearised notation of its eq. (4):
#   s = (M00*ty + M01*tx + o0 + i*d0) * cols + M10*ty + M11*tx + o1 + i*d1
# Inputs for `lsugen conflicts` and `lsugen search`; they generate no
# hardware.

locals {
  tile_dim = 16 # TILE_DIM of the CUDA SDK transpose
  threads  = 256
}

# §3.2.1 tile[ty + i][tx] = idata[...]: linear, conflict-free.
pattern "transpose_load" {
  matrix     = [[1, 0], [0, 1]]
  cols       = local.tile_dim
  block      = [local.tile_dim, local.tile_dim]
  iterations = 1
  step       = [1, 0]
}

# §3.2.2 odata[...] = tile[tx][ty + i]: stride TILE_DIM across tx, 8-way
# with 32 banks.
pattern "transpose_store" {
  matrix     = [[0, 1], [1, 0]]
  cols       = local.tile_dim
  block      = [local.tile_dim, local.tile_dim]
  iterations = 1
  step       = [0, 1]
}

# §3.2.3 sdata[2*S*tx] in the reduction tree; only the threads still
# active at step S (blockDim / (2S) of them) take part.
pattern "reduction_s1" {
  matrix = [[0, 0], [0, 2 * 1]]
  block  = [local.threads / (2 * 1), 1]
}

pattern "reduction_s4" {
  matrix = [[0, 0], [0, 2 * 4]]
  block  = [local.threads / (2 * 4), 1]
}

# §3.2.4 Fast Walsh Transform, i0 = sw_index*stride*4 + lo: sub-warps of
# `stride` lanes (tx = lo, ty = sw_index); one warp of 32 lanes.
pattern "fwt_stride8" {
  matrix = [[4 * 8, 0], [0, 1]]
  block  = [8, 4]
}

pattern "fwt_stride2" {
  matrix = [[4 * 2, 0], [0, 1]]
  block  = [2, 16]
}
