# The bank arbiter feeding the elastic pipeline (001_*): the top-level
# module ep_arbitrated_m4 takes each shared-memory offer's addresses and
# active lanes, and an instance of the arbiter ep_arbiter_8 computes the
# bank-conflict degree the pipeline's MEM0 stage needs (in_degree_i of a
# plain elastic_pipeline). The paper's configuration (Table 3: M = 4,
# warp 32, SIMD width 8) with 8 banks of 4-byte words under an XOR hash.

hash "ep_bank_xor" {
  function  = "xor_matrix"
  addr_bits = 12
  bank_bits = 3
  bits      = [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
}

bank_arbiter "ep_arbiter_8" {
  lanes     = 8
  addr_bits = 12
  hash      = hash.ep_bank_xor
}

elastic_pipeline "ep_arbitrated_m4" {
  mem_stages = 4
  warp_size  = 32
  simd_width = 8
  tag_bits   = 10
  arbiter    = bank_arbiter.ep_arbiter_8
}
