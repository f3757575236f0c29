shared_memory "too_many_lanes" {
  lanes = 65
  bytes = 1024
  banks = 8
}

shared_memory "too_big" {
  lanes = 8
  bytes = 2 * 1024 * 1024
  banks = 8
}

shared_memory "not_16" {
  lanes = 8
  bytes = 1000
  banks = 8
}

shared_memory "bank_bytes_2" {
  lanes      = 8
  bytes      = 1024
  bank_bytes = 2
  banks      = 8
}

shared_memory "seventeen" {
  lanes = 8
  bytes = 1024
  banks = 17
}

shared_memory "banks_65" {
  lanes = 8
  bytes = 1024
  banks = 65
}

shared_memory "neither" {
  lanes = 8
  bytes = 1024
}

hash "h" {
  function  = "bitvector_perm"
  addr_bits = 8
  bank_bits = 3
  k         = 0
}

shared_memory "both" {
  lanes = 8
  bytes = 1024
  banks = 8
  hash  = hash.h
}

shared_memory "bad_widths" {
  lanes  = 8
  bytes  = 1024
  banks  = 8
  widths = [32, 48, 32]
}

shared_memory "no_widths" {
  lanes  = 8
  bytes  = 1024
  banks  = 8
  widths = []
}

shared_memory "bad_atomics" {
  lanes   = 8
  bytes   = 1024
  banks   = 8
  atomics = ["add", "min", "add", 3]
}

shared_memory "bad_figures" {
  lanes             = 8
  bytes             = 1024
  banks             = 8
  bank_access_fo4   = 0
  bank_setup_fo4    = -1
  bank_area_per_bit = "big"
}

shared_memory "atomics_need_32" {
  lanes  = 8
  bytes  = 1024
  banks  = 8
  widths = [64, 128]
}

shared_memory "atomics_need_32_too" {
  lanes   = 8
  bytes   = 1024
  banks   = 8
  widths  = [128]
  atomics = ["cas"]
}

shared_memory "wide_only" {
  lanes   = 8
  bytes   = 1024
  banks   = 8
  widths  = [128]
  atomics = []
}

shared_memory "bad_clock" {
  lanes       = 8
  bytes       = 1024
  banks       = 8
  clock_fo4   = 2
}

shared_memory "mode_without_clock" {
  lanes       = 8
  bytes       = 1024
  banks       = 8
  timing_mode = "sized"
}
