package trace

import (
	"math/rand/v2"

	"github.com/lsugen/lsugen/specs"
)

// FromPattern expands a spec's access pattern: for each iteration, one access per warp
// in warp order, lanes in tid order. Instr is the pattern name and Line
// the line of its block header.
func FromPattern(p *specs.Pattern) []Access {
	threads := p.Block[0] * p.Block[1]
	if threads == 0 || p.WarpSize < 1 {
		return nil // not from the decoder
	}
	warps := (threads + p.WarpSize - 1) / p.WarpSize
	var rng *rand.Rand
	if p.Random {
		rng = rand.New(rand.NewPCG(p.RandomSeed, 0x9e3779b97f4a7c15))
	}
	out := make([]Access, 0, warps*p.Iterations)
	m, c := p.Matrix, p.Cols
	for i := int64(0); i < int64(p.Iterations); i++ {
		for w := 0; w < warps; w++ {
			lo, hi := w*p.WarpSize, min((w+1)*p.WarpSize, threads)
			addrs := make([]uint64, 0, hi-lo)
			for tid := lo; tid < hi; tid++ {
				tx, ty := int64(tid%p.Block[0]), int64(tid/p.Block[0])
				m00, m11 := m[0][0], m[1][1]
				if rng != nil {
					m00, m11 = int64(rng.Uint64N(uint64(m00)+1)), int64(rng.Uint64N(uint64(m11)+1))
				}
				row := m00*ty + m[0][1]*tx + p.Offset[0] + i*p.Step[0]
				s := row*c + m[1][0]*ty + m11*tx + p.Offset[1] + i*p.Step[1]
				addrs = append(addrs, uint64(s))
			}
			out = append(out, Access{Instr: p.Name, Line: p.Range.Start.Line, Addrs: addrs})
		}
	}
	return out
}
