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
