bank_arbiter "a16" {
  lanes     = 16
  addr_bits = 10
  bank_bits = 3
}

bank_arbiter "a8_serial" {
  lanes     = 8
  addr_bits = 10
  bank_bits = 3
  serialize = true
}

elastic_pipeline "wrong_lanes" {
  mem_stages = 2
  warp_size  = 16
  simd_width = 8
  tag_bits   = 4
  arbiter    = bank_arbiter.a16
}

elastic_pipeline "serializing" {
  mem_stages = 2
  warp_size  = 16
  simd_width = 8
  tag_bits   = 4
  arbiter    = bank_arbiter.a8_serial
}

elastic_pipeline "not_an_arbiter" {
  mem_stages = 2
  warp_size  = 16
  simd_width = 8
  tag_bits   = 4
  arbiter    = hash.a16
}
