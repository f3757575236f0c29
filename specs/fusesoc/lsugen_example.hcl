# The spec of lsugen_example.core: the CLA add hash of ../hash_atomics.hcl
# (bank = LSB + MSB over 5 bank bits of a 14-bit word address). It sits
# beside the core because lsugen fusesoc-gen reads specs only inside
# files_root, the calling core's directory.

hash "atomic_add_cla" {
  function  = "add"
  addr_bits = 14
  bank_bits = 5
  adder     = "cla"
}
