package accelsim

import "fmt"

// Phases returns the word accesses a shared-memory access makes on banks
// banks of bankBytes bytes each (word = byte offset / bankBytes), one
// slice of word addresses per phase, appended to dst (reused storage).
//
// An access is served as NVIDIA hardware (and lsugen's shared_memory
// unit, docs/shared-memory.md) serves it: in phases of L = max(1, banks /
// k) consecutive lanes by lane index, k = max(1, Width / bankBytes) words
// per lane, so that a phase's words fill the banks once (32 lanes for
// 32-bit, 16 lanes for 64-bit and 8 lanes for 128-bit accesses on 32
// four-byte banks; 16 lanes for 32-bit accesses on 16 banks); each active
// lane of a phase contributes its k consecutive words (a lane of Width <=
// bankBytes the word holding its address). Phases without an active lane
// are left out. Each phase counts as one access.
func Phases(a *WarpAccess, bankBytes, banks int, dst [][]uint64) ([][]uint64, error) {
	dst = dst[:0]
	if bankBytes != 4 && bankBytes != 8 {
		return dst, fmt.Errorf("bank width %d bytes: want 4 or 8", bankBytes)
	}
	if banks < 1 {
		return dst, fmt.Errorf("%d banks: want at least 1", banks)
	}
	if a.Width < 1 || len(a.Addrs) == 0 {
		return dst, nil
	}
	shift := uint(2)
	if bankBytes == 8 {
		shift = 3
	}
	k := max(1, a.Width/bankBytes)
	lanesPerPhase := max(1, banks/k)
	phase := -1 // index of the phase the last slice holds
	i := 0
	for lane := 0; lane < WarpSize; lane++ {
		if a.Mask&(1<<lane) == 0 {
			continue
		}
		if i >= len(a.Addrs) {
			break
		}
		word := a.Addrs[i] >> shift
		i++
		if p := lane / lanesPerPhase; p != phase {
			phase = p
			if len(dst) < cap(dst) {
				dst = dst[:len(dst)+1]
				dst[len(dst)-1] = dst[len(dst)-1][:0]
			} else {
				dst = append(dst, make([]uint64, 0, WarpSize))
			}
		}
		last := &dst[len(dst)-1]
		for j := range k {
			*last = append(*last, word+uint64(j))
		}
	}
	return dst, nil
}
