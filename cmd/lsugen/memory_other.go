//go:build !linux

package main

// memoryAvailable is unknown off Linux: the sweep then runs --jobs points
// at once as given.
func memoryAvailable() (bytes int64, limited, ok bool) { return 0, false, false }

// heapWithinAddressSpace does nothing off Linux.
func heapWithinAddressSpace() {}
