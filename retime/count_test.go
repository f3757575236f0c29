package retime

import (
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
)

// TestRegistersAt_MatchesBuild: the count the readable placement uses to
// skip building a placement it could not keep is the number of
// flip-flops build makes, buffered or not, at every latency tried.
func TestRegistersAt_MatchesBuild(t *testing.T) {
	d, diags := gen.Coalescer(&specs.Coalescer{Name: "a2a", Structure: specs.AllToAll, Lanes: 8, AddrBits: 16, BlockBits: 2})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// Each gate's depth in gates, cut into L stages of equal depth: a
	// stage never decreases along a wire.
	depth := make([]int, len(d.Gates))
	at := map[int]int{} // net -> its driver's depth
	maxDepth := 0
	for gi, g := range d.Gates {
		for _, n := range g.In {
			depth[gi] = max(depth[gi], at[int(n)]+1)
		}
		at[int(g.Out)] = depth[gi]
		maxDepth = max(maxDepth, depth[gi])
	}
	for _, L := range []int{1, 2, 3, 5} {
		stageOf := make([]int32, len(d.Gates))
		for gi := range stageOf {
			stageOf[gi] = int32(depth[gi] * L / (maxDepth + 1))
		}
		for _, buffer := range []bool{false, true} {
			r, err := build(d, stageOf, L, buffer)
			if err != nil {
				t.Fatal(err)
			}
			if got := registersAt(d, stageOf, L); got != r.Registers {
				t.Errorf("L %d, buffered %v: registersAt %d, build made %d", L, buffer, got, r.Registers)
			}
		}
	}
}
