MemcpyHtoD,0x00007f5000000000,4096
kernel-1.traceg
kernel-2.traceg.xz
