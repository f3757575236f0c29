package verify

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// TestSpread_MatchesBitByBit: cycles packed by their nonzero words unpack
// as they were, and the transposing spreader puts every bit of every
// lane's cycle where a bit-by-bit move puts it, over ports of odd widths,
// lanes past their segment's end or without one, and words zero in every
// lane.
func TestSpread_MatchesBitByBit(t *testing.T) {
	var ports []*netlist.Port
	var off []int
	perCycle := 0
	for i, w := range []int{1, 63, 64, 65, 200, 7, 128, 4000} {
		ports = append(ports, &netlist.Port{Name: string(rune('a' + i)), Bits: make(netlist.Bus, w)})
		off = append(off, perCycle)
		perCycle += words(w)
	}
	const cycles = 300
	r := rand.New(rand.NewPCG(1, 2))
	flat := make([]uint64, cycles*perCycle)
	p := newPacked(perCycle, cycles)
	for c := range cycles {
		for j, pt := range ports {
			if (j == 4 || j == 7) && c%3 != 0 {
				continue // a port zero in most cycles
			}
			v := flat[c*perCycle+off[j] : c*perCycle+off[j]+words(pt.Width())]
			for k := range v {
				if r.IntN(5) > 0 {
					v[k] = r.Uint64()
				}
			}
			maskPort(v, pt.Width())
		}
		p.add(flat[c*perCycle : (c+1)*perCycle])
	}
	buf := make([]uint64, perCycle)
	for c := range cycles {
		for k := range buf {
			buf[k] = r.Uint64()
		}
		p.unpack(buf, c)
		if !slices.Equal(buf, flat[c*perCycle:(c+1)*perCycle]) {
			t.Fatalf("cycle %d unpacks to other words", c)
		}
	}
	dst := make([][]uint64, len(ports))
	for j, pt := range ports {
		dst[j] = make([]uint64, pt.Width())
	}
	for _, n := range []int{1, 5, 64} {
		sp := newSpreader(perCycle, off, ports)
		length := (cycles + n - 1) / n
		var segs []segment
		for start := 0; start < cycles; start += length {
			segs = append(segs, segment{start, min(start+length, cycles)})
		}
		for i := range length {
			for j := range dst {
				for b := range dst[j] {
					dst[j][b] = r.Uint64() // stale lanes must be overwritten
				}
			}
			sp.spread(dst, p, segs, i)
			for j, pt := range ports {
				for b := range pt.Width() {
					var want uint64
					for l, sg := range segs {
						if c := sg.start + i; c < sg.end {
							want |= (flat[c*perCycle+off[j]+b/64] >> uint(b%64) & 1) << uint(l)
						}
					}
					if dst[j][b] != want {
						t.Fatalf("%d segments, step %d: port %s bit %d: lanes %#x, want %#x", n, i, pt.Name, b, dst[j][b], want)
					}
				}
			}
		}
	}
}
