package search

import "math/rand/v2"

// Synthetic workloads of the search's benchmarks (tools/search and
// make bench): warp accesses of 32 lanes to a 2^14-word scratchpad.

// KernelTrace is n accesses of a tiled kernel in a 2^14-word scratchpad:
// row reads (stride 1), column writes (stride 64), stride-33 and stride-6
// accesses and 8×4 blocks, each from a random tile base: the repetition
// real traces have, which the XOR-offset reduction exploits.
func KernelTrace(n int, seed uint64) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([][]uint64, n)
	for k := range out {
		base := uint64(rng.IntN(1<<14)) &^ 31
		a := make([]uint64, 32)
		pat := rng.IntN(5)
		for l := range a {
			i := uint64(l)
			switch pat {
			case 0:
				a[l] = base + i
			case 1:
				a[l] = base&^2047 + i*64 + base&63
			case 2:
				a[l] = base + i*33
			case 3:
				a[l] = base + i*6
			default:
				a[l] = base + (i/8)*128 + i%8
			}
			a[l] &= 1<<14 - 1
		}
		out[k] = a
	}
	return out
}

// RandomTrace is n accesses of 32 uniform random 14-bit addresses: the
// worst case, where no two accesses reduce to the same one.
func RandomTrace(n int, seed uint64) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	out := make([][]uint64, n)
	for k := range out {
		a := make([]uint64, 32)
		for l := range a {
			a[l] = uint64(rng.IntN(1 << 14))
		}
		out[k] = a
	}
	return out
}
