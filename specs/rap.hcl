# Random address permute-shift (RAP) from "Random Address Permute-Shift
# Technique for the Shared Memory on GPUs" (004_*). A w x w matrix element
# (i, j) is stored in bank (j + r_i) mod w, at address i*w + that bank.

# The example of the paper's Figure 6: w = 4, r = (2, 0, 3, 1).
hash "rap_w4_fig6" {
  function    = "rap"
  w           = 4
  permutation = [2, 0, 3, 1]
}

# w = 32, as on the GPUs the paper measures, with a permutation drawn from
# a seed; 10 address bits index the 32 x 32 matrix.
hash "rap_w32" {
  function = "rap"
  w        = 32
  seed     = 2014
}

# Two 32 x 32 matrices: the 11th address bit selects the matrix and passes
# through; the column adder is a carry-lookahead one.
hash "rap_w32_two_matrices" {
  function  = "rap"
  w         = 32
  addr_bits = 11
  seed      = 7
  adder     = "cla"
}

# Section VII: RAP for a w x w x w x w array, a[i][j][k][l] at address
# i*w^3 + j*w^2 + k*w + l. 3P, the scheme the paper recommends: three
# permutations shift by k, j and i, bank = (l + r0[k] + r1[j] + r2[i]) mod w,
# so every stride access (along k, j or i) is conflict-free.
hash "rap_w4_3p" {
  function     = "rap"
  scheme       = "3P"
  w            = 4
  permutations = [[2, 0, 3, 1], [1, 3, 0, 2], [3, 2, 1, 0]]
}

# 3P at the paper's w = 32: a 32^4 array, 20 address bits.
hash "rap_w32_3p" {
  function = "rap"
  scheme   = "3P"
  w        = 32
  seed     = 2014
}

# R1P: one permutation used for k, j and i, bank = (l + r[k] + r[j] + r[i])
# mod w: strides conflict-free with w random numbers, but the six orderings
# of (i, j, k) share a bank (the paper's malicious access).
hash "rap_w32_r1p" {
  function = "rap"
  scheme   = "R1P"
  w        = 32
  seed     = 2014
  adder    = "cla"
}

# RAS, the random address shift RAP improves on: independent shifts, one
# per row of a 32 x 32 matrix (a stride access conflicts as balls in bins).
hash "rap_w32_ras" {
  function = "rap"
  scheme   = "RAS"
  w        = 32
  seed     = 2014
}

# RAS for a w^4 array at w = 8: w^3 = 512 shifts, one per (i, j, k), read
# from the 9 address bits above the column (12 address bits in all).
hash "rap_w8_ras_w4" {
  function = "rap"
  scheme   = "RAS"
  w        = 8
  rows     = 512
  seed     = 5
}
