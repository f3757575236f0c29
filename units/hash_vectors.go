package units

import (
	"math/bits"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// hashDirected gives directed vectors to the mod hash, whose arithmetic
// has corners that random wide addresses rarely hit; the other hashes
// are XOR networks, small adders or tables, which every address up to
// 2^20 and random addresses reach (exhaustive enumeration covers mod up to
// 2^20 too, so the corners matter from 21 address bits on).
func hashDirected(h *specs.Hash) verify.DirectedFunc {
	if h.Function != specs.Mod || h.AddrBits > 64 || h.Banks < 2 {
		return nil
	}
	return func(ins []*netlist.Port, _ uint64) []verify.Vector {
		if len(ins) != 1 || ins[0].Name != "addr_i" {
			return nil
		}
		var vs []verify.Vector
		for _, a := range modCorners(h.AddrBits, uint64(h.Banks)) {
			vs = append(vs, verify.Vector{{a}})
		}
		return vs
	}
}

// modCorners lists the addresses where a mod unit's arithmetic turns:
// 0 and all ones, the multiples of banks and their neighbours at both
// ends of the range, one bit set or clear, and, for banks = 2^n(2^m - 1),
// runs of all-ones m-bit chunks above the n pass-through bits (chunk sums
// that are multiples of 2^m - 1, the folding's end-around corner).
func modCorners(addrBits int, banks uint64) []uint64 {
	top := ^uint64(0) >> (64 - addrBits)
	seen := map[uint64]bool{}
	var out []uint64
	add := func(a uint64) {
		if a <= top && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	add(0)
	add(top)
	last := top / banks // the largest quotient
	for j := uint64(0); j < 3; j++ {
		for _, k := range []uint64{1 + j, last - j} {
			add(k*banks - 1)
			add(k * banks)
			add(k*banks + 1)
		}
	}
	for i := range addrBits {
		add(1 << i)
		add(top ^ 1<<i)
	}
	n := bits.TrailingZeros64(banks)
	if q := banks >> n; q > 1 && q&(q+1) == 0 {
		m := bits.Len64(q)
		for hi := n + m; hi <= addrBits; hi += m {
			run := ^uint64(0) >> (64 - hi) >> n << n // bits n .. hi-1
			add(run)
			add(run | (1<<n - 1))
			add(run ^ 1<<n)
		}
	}
	return out
}
