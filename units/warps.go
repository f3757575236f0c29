package units

import (
	"math/rand/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// warpVectors returns the vectors that matter for a unit whose input is
// a warp of lane addresses (lanes of bits bits, block the cache-block
// offset), beyond what random vectors reach. Random addresses almost never
// repeat and are almost never monotonic, so the interesting cases are
// built here: monotonic warps, runs of equal addresses, single inversions,
// wrap-around, block merges, and random warps over a few distinct values.
// A unit with an active_i input after addr_i gets each warp with the
// masks of maskedWarpVectors.
func warpVectors(lanes, bits, block int, ins []*netlist.Port, seed uint64) []verify.Vector {
	masked := len(ins) == 2 && ins[1].Name == "active_i" && ins[1].Width() == lanes
	if len(ins) != 1 && !masked || ins[0].Width() != lanes*bits {
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

	if masked {
		return maskedWarpVectors(lanes, bits, block, mask, warps, r)
	}
	vs := make([]verify.Vector, len(warps))
	for i, w := range warps {
		vs[i] = verify.Vector{packWarp(w, bits)}
	}
	return vs
}

// packWarp packs lane addresses of bits bits into port words, lane 0
// lowest.
func packWarp(w []uint64, bits int) []uint64 {
	words := make([]uint64, (len(w)*bits+63)/64)
	for k, a := range w {
		for b := 0; b < bits; b++ {
			if a>>uint(b)&1 == 1 {
				pos := k*bits + b
				words[pos/64] |= 1 << uint(pos%64)
			}
		}
	}
	return words
}

// maskedWarpVectors pairs the warps of warpVectors with active masks: no
// lane, one lane (the first, the last, one in the middle), every lane,
// the even and the odd lanes, a random mask, and the greedy longest
// non-decreasing and non-increasing runs of the warp (which make a
// non-monotonic warp monotonic over its active lanes). The first 18 warps
// (the structured ones) get every mask, the random ones every lane, a
// random mask and the monotonic runs. Then warps built around their mask:
// monotonic active lanes between scrambled inactive ones (monotonic only
// over the active lanes), non-monotonic active lanes between inactive ones
// that would make the warp monotonic, and every active lane on one block
// with the inactive lanes elsewhere.
func maskedWarpVectors(lanes, bits, block int, addrMask uint64, warps [][]uint64, r *rand.Rand) []verify.Vector {
	type lm = []bool
	full := func(f func(i int) bool) lm {
		m := make(lm, lanes)
		for i := range m {
			m[i] = f(i)
		}
		return m
	}
	randMask := func() lm { return full(func(int) bool { return r.IntN(2) == 1 }) }
	// run keeps lane i when it does not break the order of the lanes kept.
	run := func(w []uint64, up bool) lm {
		m := make(lm, lanes)
		last, have := uint64(0), false
		for i, a := range w {
			if !have || (up && a >= last) || (!up && a <= last) {
				m[i], last, have = true, a, true
			}
		}
		return m
	}
	fixed := []lm{
		full(func(int) bool { return false }),
		full(func(i int) bool { return i == 0 }),
		full(func(i int) bool { return i == lanes-1 }),
		full(func(i int) bool { return i == lanes/2 }),
		full(func(int) bool { return true }),
		full(func(i int) bool { return i%2 == 0 }),
		full(func(i int) bool { return i%2 == 1 }),
	}
	type pair struct {
		w []uint64
		m lm
	}
	var ps []pair
	for k, w := range warps {
		if k < 18 {
			for _, m := range fixed {
				ps = append(ps, pair{w, m})
			}
		} else {
			ps = append(ps, pair{w, fixed[4]})
		}
		ps = append(ps, pair{w, randMask()}, pair{w, run(w, true)}, pair{w, run(w, false)})
	}
	shift := uint(block)
	for k := 0; k < 16; k++ {
		m := randMask()
		base := r.Uint64() & addrMask >> 2
		w := make([]uint64, lanes)
		switch k % 4 {
		case 0, 1: // active lanes increasing (k = 0) or decreasing, inactive lanes random
			step := uint64(r.IntN(3)) << shift
			for i := range w {
				w[i] = r.Uint64() & addrMask
				if m[i] {
					if k%4 == 0 {
						w[i] = base + uint64(i)*step
					} else {
						w[i] = base + uint64(lanes-i)*step
					}
				}
			}
		case 2: // a monotonic warp but for one active lane that is out of order
			for i := range w {
				w[i] = base + uint64(i)<<shift
			}
			var act []int
			for i, on := range m {
				if on {
					act = append(act, i)
				}
			}
			if len(act) >= 3 {
				w[act[len(act)/2]] = base + uint64(lanes)<<shift // above every later active lane
			}
		case 3: // every active lane on one block, the inactive lanes on others
			for i := range w {
				w[i] = base + uint64(1+r.IntN(lanes))<<shift
				if m[i] {
					w[i] = base | uint64(r.IntN(1<<min(shift, 8)))
				}
			}
		}
		for i := range w {
			w[i] &= addrMask
		}
		ps = append(ps, pair{w, m})
	}

	vs := make([]verify.Vector, len(ps))
	for i, p := range ps {
		act := make([]uint64, (lanes+63)/64)
		for k, on := range p.m {
			if on {
				act[k/64] |= 1 << uint(k%64)
			}
		}
		vs[i] = verify.Vector{packWarp(p.w, bits), act}
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
