# The largest accepted bank arbiters (docs/limits.md): 64 lanes
# (MaxArbiterLanes) of 64-bit addresses (MaxLaneAddrBits), 16 bank bits
# (MaxBankBits); combinational and serializing (clocked).

bank_arbiter "lim_arbiter" {
  lanes     = 64
  addr_bits = 64
  bank_bits = 16
}

bank_arbiter "lim_arbiter_serial" {
  lanes     = 64
  addr_bits = 64
  bank_bits = 16
  serialize = true
}
