addr_bits = 16
