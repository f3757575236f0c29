package units

import (
	"math/rand/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// warpVectors returns the vectors that matter for a unit whose only input
// is a warp of lane addresses (lanes of bits bits, block the cache-block
// offset), beyond what random vectors reach. Random addresses almost never
// repeat and are almost never monotonic, so the interesting cases are
// built here: monotonic warps, runs of equal addresses, single inversions,
// wrap-around, block merges, and random warps over a few distinct values.
func warpVectors(lanes, bits, block int, ins []*netlist.Port, seed uint64) []verify.Vector {
	if len(ins) != 1 || ins[0].Width() != lanes*bits {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x6469726563746564))
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<uint(bits) - 1
	}
	var warps [][]uint64
	add := func(w []uint64) {
		for i := range w {
			w[i] &= mask
		}
		warps = append(warps, w)
	}
	ramp := func(start, step uint64) []uint64 {
		w := make([]uint64, lanes)
		for i := range w {
			w[i] = start + uint64(i)*step
		}
		return w
	}
	reverse := func(w []uint64) []uint64 {
		out := make([]uint64, len(w))
		for i := range w {
			out[len(w)-1-i] = w[i]
		}
		return out
	}
	swap := func(w []uint64, i int) []uint64 {
		out := append([]uint64(nil), w...)
		out[i], out[i+1] = out[i+1], out[i]
		return out
	}
	base := r.Uint64() & mask >> 1
	inc := ramp(base, 1)
	add(inc)                                       // strictly increasing
	add(reverse(ramp(base, 1)))                    // strictly decreasing
	add(ramp(base, 0))                             // all equal
	add(ramp(0, 0))                                // all zero
	add(ramp(mask, 0))                             // all ones
	add(ramp(base, 1<<uint(block)))                // one block per lane
	add(ramp(base<<2, 1))                          // neighbours share blocks when block_bits > 0
	add(swap(inc, 0))                              // inversion at the first pair
	add(swap(inc, lanes-2))                        // inversion at the last pair
	add(swap(reverse(inc), 0))                     // ... of a decreasing warp
	add(swap(reverse(inc), lanes-2))               //
	add(append([]uint64{mask}, ramp(0, 0)[1:]...)) // all-ones above zeros: non-increasing
	add(append(ramp(0, 0)[:lanes-1], mask))        // zeros then all-ones: non-decreasing (unsigned)
	add(append([]uint64{0}, ramp(mask, 0)[1:]...)) // zero below all-ones
	add(ramp(mask-uint64(lanes)/2, 1))             // increasing through the wrap to 0: not monotonic
	runs := make([]uint64, lanes)                  // runs of equal addresses, increasing
	for i := range runs {
		runs[i] = base + uint64(i/3)
	}
	add(runs)
	add(reverse(runs))
	pair := make([]uint64, lanes) // a repeat two lanes apart in a non-monotonic warp
	for i := range pair {
		pair[i] = base + uint64(i%2)
	}
	add(pair)
	// Random warps over a few distinct values, sorted or not: repeats
	// everywhere, monotonic about half the time.
	for k := 0; k < 48; k++ {
		pool := make([]uint64, 1+r.IntN(4))
		for i := range pool {
			pool[i] = r.Uint64()
			if k%3 == 0 {
				pool[i] = base + uint64(r.IntN(8))
			}
		}
		w := make([]uint64, lanes)
		for i := range w {
			w[i] = pool[r.IntN(len(pool))]
		}
		if k%2 == 0 {
			sortWarp(w, mask, k%4 == 0)
		}
		add(w)
	}

	vs := make([]verify.Vector, len(warps))
	for i, w := range warps {
		words := make([]uint64, (lanes*bits+63)/64)
		for k, a := range w {
			for b := 0; b < bits; b++ {
				if a>>uint(b)&1 == 1 {
					pos := k*bits + b
					words[pos/64] |= 1 << uint(pos%64)
				}
			}
		}
		vs[i] = verify.Vector{words}
	}
	return vs
}

// sortWarp sorts the masked addresses ascending, or descending.
func sortWarp(w []uint64, mask uint64, descending bool) {
	for i := range w {
		w[i] &= mask
	}
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && (w[j] < w[j-1]) != descending && w[j] != w[j-1]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
}
