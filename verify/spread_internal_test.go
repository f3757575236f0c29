package verify

import (
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// TestSpread_MatchesBitByBit: the transposing spreader puts every bit of
// every live lane's slot where a bit-by-bit move puts it, over ports of odd
// widths, lanes without a cycle and words zero in every lane.
func TestSpread_MatchesBitByBit(t *testing.T) {
	var ports []*netlist.Port
	var off []int
	perCycle := 0
	for i, w := range []int{1, 63, 64, 65, 200, 7, 128} {
		ports = append(ports, &netlist.Port{Name: string(rune('a' + i)), Bits: make(netlist.Bus, w)})
		off = append(off, perCycle)
		perCycle += words(w)
	}
	const cycles = 300
	r := rand.New(rand.NewPCG(1, 2))
	flat := make([]uint64, cycles*perCycle)
	for c := range cycles {
		for j, p := range ports {
			if j == 4 && c%3 != 0 {
				continue // a port zero in most cycles
			}
			v := flat[c*perCycle+off[j] : c*perCycle+off[j]+words(p.Width())]
			for k := range v {
				v[k] = r.Uint64()
			}
			maskPort(v, p.Width())
		}
	}
	dst := make([][]uint64, len(ports))
	for j, p := range ports {
		dst[j] = make([]uint64, p.Width())
	}
	sp := newSpreader(perCycle, off, ports)
	for trial := range 20 {
		n := 64 - r.IntN(8)
		base := r.IntN(cycles - n)
		live := r.Uint64()
		if trial == 0 {
			live = 0
		}
		for j := range dst {
			for b := range dst[j] {
				dst[j][b] = r.Uint64() // stale lanes must be overwritten
			}
		}
		sp.spread(dst, flat, base, n, live)
		for j, p := range ports {
			for b := range p.Width() {
				var want uint64
				for l := range n {
					if c := base + l; live>>uint(l)&1 == 1 {
						want |= (flat[c*perCycle+off[j]+b/64] >> uint(b%64) & 1) << uint(l)
					}
				}
				if dst[j][b] != want {
					t.Fatalf("trial %d: port %s bit %d: lanes %#x, want %#x", trial, p.Name, b, dst[j][b], want)
				}
			}
		}
	}
}
