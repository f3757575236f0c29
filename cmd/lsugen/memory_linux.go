package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// heapWithinAddressSpace sets the Go runtime's soft memory limit to three
// quarters of an address-space limit (ulimit -v), where there is one and
// GOMEMLIMIT does not set it: the collector then works harder as the heap
// nears the limit, where by default it lets the heap grow to twice what
// is live, and a run would die of running out of memory with much of it
// garbage.
func heapWithinAddressSpace() {
	if limit, ok := addressSpaceLimit(); ok && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit / 4 * 3)
	}
}

// addressSpaceLimit is the process's address-space limit (ulimit -v) in
// bytes; ok is false where there is none.
func addressSpaceLimit() (bytes int64, ok bool) {
	var rl syscall.Rlimit // RLIM_INFINITY: all ones
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) != nil || rl.Cur == ^uint64(0) {
		return 0, false
	}
	return int64(rl.Cur), true
}

// memoryAvailable is the memory this process can still take: under an
// address-space limit (ulimit -v), what the limit leaves above the
// process's size now (limited is then true), else the system's
// MemAvailable; ok is false where neither is known.
func memoryAvailable() (bytes int64, limited, ok bool) {
	if limit, ok := addressSpaceLimit(); ok {
		if size, ok := procKB("/proc/self/status", "VmSize:"); ok {
			return max(limit-size<<10, 0), true, true
		}
	}
	if avail, ok := procKB("/proc/meminfo", "MemAvailable:"); ok {
		return avail << 10, false, true
	}
	return 0, false, false
}

// procKB is the value in kB of field (with its colon) in a /proc file.
func procKB(path, field string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == field {
			v, err := strconv.ParseInt(string(f[1]), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
