package netlist

import "math/bits"

// simMem is one memory in the simulator. Its words are bit-sliced like
// the nets: bits[w*width+b] holds bit b of word w, its bit l the word's
// bit in lane l, so that each of the 64 lanes has contents of its own.
//
// At an edge, Step takes the lanes that read (or write) one address
// together: the lowest pending lane's address, and every lane that
// carries the same address, in a handful of word operations; then it
// moves whole words under that lane mask. Lanes driven alike (one stream
// copied to every lane, or lane 0 and 63 idle lanes) cost one group, as
// a single-lane simulator would; 64 distinct addresses cost 64. Nothing
// is allocated per edge.
type simMem struct {
	words, width, granule int
	re, we                int32
	raddr, waddr          []int32
	wdata, wmask, rdata   []int32
	bits                  []uint64
	next                  []uint64 // the read data after the edge
}

// newSimMem compiles m, its nets as the simulator's slots (Sim.slot).
func newSimMem(m *Memory, slot []int32) simMem {
	nets := func(bus Bus) []int32 {
		out := make([]int32, len(bus))
		for i, n := range bus {
			out[i] = slot[n]
		}
		return out
	}
	return simMem{
		words: m.Words, width: m.Width, granule: m.Width / len(m.WMask),
		re: slot[m.RE], we: slot[m.WE],
		raddr: nets(m.RAddr), waddr: nets(m.WAddr),
		wdata: nets(m.WData), wmask: nets(m.WMask), rdata: nets(m.RData),
		bits: make([]uint64, m.Words*m.Width),
		next: make([]uint64, m.Width),
	}
}

// group returns the address that the lowest lane of lanes carries on
// addr, and the lanes of lanes that carry the same address.
func group(v []uint64, addr []int32, lanes uint64) (int, uint64) {
	l := uint(bits.TrailingZeros64(lanes))
	a, same := 0, lanes
	for j, n := range addr {
		x := v[n]
		bit := x >> l & 1
		a |= int(bit) << j
		same &^= x ^ -bit // without branches: random addresses defeat prediction
	}
	return a, same
}

// edge computes m's read data after a rising edge into m.next and applies
// its writes, from the nets' values before the edge: the read sees the
// words before this edge's write (read-first).
func (m *simMem) edge(v []uint64) {
	next := m.next
	for b, n := range m.rdata {
		next[b] = v[n]
	}
	for lanes := v[m.re]; lanes != 0; {
		a, same := group(v, m.raddr, lanes)
		lanes &^= same
		if a >= m.words {
			for b := range next {
				next[b] &^= same
			}
			continue
		}
		row := m.bits[a*m.width : (a+1)*m.width]
		for b, w := range row {
			next[b] = next[b]&^same | w&same
		}
	}
	for lanes := v[m.we]; lanes != 0; {
		a, same := group(v, m.waddr, lanes)
		lanes &^= same
		if a >= m.words {
			continue
		}
		row := m.bits[a*m.width : (a+1)*m.width]
		for j, mk := range m.wmask {
			en := same & v[mk]
			if en == 0 {
				continue
			}
			lo := j * m.granule
			for b, n := range m.wdata[lo : lo+m.granule] {
				row[lo+b] = row[lo+b]&^en | v[n]&en
			}
		}
	}
}

// MemoryBit returns bit b of word w of memory i (an index into
// Design.Memories) in each lane: the contents a test can compare with a
// reference. Words start 0 in the simulator (a Verilog array starts X).
func (s *Sim) MemoryBit(i, w, b int) uint64 {
	m := &s.mems[i]
	return m.bits[w*m.width+b]
}
