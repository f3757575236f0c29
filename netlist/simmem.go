package netlist

import "math/bits"

// simMem is one memory in the simulator, with contents of its own in each
// of the 64 lanes. Its words are stored lane by lane (data[(w*64+l)*cw+k]
// holds bits 64k to 64k+63 of word w in lane l, cw chunks of 64 bits per
// word), so that a lane reads or writes a word with one load or store
// whatever the other lanes' addresses; the nets are bit-sliced (a net's
// word holds one bit of all lanes), and an edge moves between the two
// with 64×64 bit transposes: the addresses and write data in, the read
// data out. Nothing is allocated per edge.
type simMem struct {
	words, width, granule, cw int
	re, we                    int32
	raddr, waddr              []int32
	wdata, wmask, rdata       []int32
	data                      []uint64
	next                      []uint64 // the read data after the edge
	t, u                      [64]uint64
	addr                      [64]int // each lane's address at this edge
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
	cw := (m.Width + 63) / 64
	return simMem{
		words: m.Words, width: m.Width, granule: m.Width / len(m.WMask), cw: cw,
		re: slot[m.RE], we: slot[m.WE],
		raddr: nets(m.RAddr), waddr: nets(m.WAddr),
		wdata: nets(m.WData), wmask: nets(m.WMask), rdata: nets(m.RData),
		data: make([]uint64, m.Words*64*cw),
		next: make([]uint64, m.Width),
	}
}

// addresses sets m.addr[l] for the lanes of lanes from the bit-sliced
// address nets, -1 for an address at or past the last word.
func (m *simMem) addresses(v []uint64, nets []int32, lanes uint64) {
	clear(m.t[:])
	var high uint64 // lanes with an address bit above 63 set
	for j, n := range nets {
		if j < 64 {
			m.t[j] = v[n] & lanes
		} else {
			high |= v[n] & lanes
		}
	}
	Transpose64(&m.t)
	for l := range 64 {
		a := m.t[l]
		if high>>l&1 == 1 || a >= uint64(m.words) {
			m.addr[l] = -1
		} else {
			m.addr[l] = int(a)
		}
	}
}

// edge computes m's read data after a rising edge into m.next and applies
// its writes, from the nets' values before the edge: the read sees the
// words before this edge's write (read-first). A lane that does not read
// keeps its read data; one that reads past the last word reads 0, and a
// write there is dropped.
func (m *simMem) edge(v []uint64) {
	next := m.next
	for b, n := range m.rdata {
		next[b] = v[n]
	}
	if re := v[m.re]; re != 0 {
		m.addresses(v, m.raddr, re)
		for k := range m.cw {
			for l := range 64 {
				m.t[l] = 0
				if a := m.addr[l]; re>>l&1 == 1 && a >= 0 {
					m.t[l] = m.data[(a*64+l)*m.cw+k]
				}
			}
			Transpose64(&m.t)
			for b := 64 * k; b < min(64*k+64, m.width); b++ {
				next[b] = next[b]&^re | m.t[b-64*k]
			}
		}
	}
	we := v[m.we]
	if we == 0 {
		return
	}
	m.addresses(v, m.waddr, we)
	for k := range m.cw {
		// The lanes' write data of chunk k in m.t, their write masks over
		// its bits in m.u.
		clear(m.t[:])
		for b := 64 * k; b < min(64*k+64, m.width); b++ {
			m.t[b-64*k] = v[m.wdata[b]] & we
		}
		Transpose64(&m.t)
		clear(m.u[:])
		for j, n := range m.wmask {
			lo, hi := max(j*m.granule, 64*k), min((j+1)*m.granule, 64*k+64)
			if lo >= hi {
				continue
			}
			bitsMask := (^uint64(0) >> (64 - uint(hi-lo))) << uint(lo-64*k)
			for x := v[n] & we; x != 0; x &= x - 1 {
				m.u[bits.TrailingZeros64(x)] |= bitsMask
			}
		}
		for l := range 64 {
			if a := m.addr[l]; we>>l&1 == 1 && a >= 0 && m.u[l] != 0 {
				w := &m.data[(a*64+l)*m.cw+k]
				*w = *w&^m.u[l] | m.t[l]&m.u[l]
			}
		}
	}
}

// MemoryBit returns bit b of word w of memory i (an index into
// Design.Memories) in each lane: the contents a test can compare with a
// reference. Words start 0 in the simulator (a Verilog array starts X).
func (s *Sim) MemoryBit(i, w, b int) uint64 {
	m := &s.mems[i]
	var x uint64
	for l := range 64 {
		x |= (m.data[(w*64+l)*m.cw+b/64] >> uint(b%64) & 1) << uint(l)
	}
	return x
}

// Transpose64 transposes the 64×64 bit matrix a in place: bit c of a[r]
// becomes bit r of a[c]. Six rounds swap off-diagonal blocks of 32, 16,
// ..., 1 bits (Hacker's Delight, 7-3) instead of 4,096 single-bit moves.
// Round j exchanges bit j of the row number with bit j of the column
// number, so the rounds commute: the three rounds over rows 8 and more
// apart run on eight rows at a time held in registers, then the three
// within each group of eight rows. It moves vectors between one value per
// vector and the simulator's bit lanes.
func Transpose64(a *[64]uint64) {
	const m32, m16, m8 = 0x00000000ffffffff, 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	const m4, m2, m1 = 0x0f0f0f0f0f0f0f0f, 0x3333333333333333, 0x5555555555555555
	for g := 0; g < 8; g++ {
		r0, r1, r2, r3 := a[g], a[g+8], a[g+16], a[g+24]
		r4, r5, r6, r7 := a[g+32], a[g+40], a[g+48], a[g+56]
		r0, r4 = swapBits(r0, r4, 32, m32)
		r1, r5 = swapBits(r1, r5, 32, m32)
		r2, r6 = swapBits(r2, r6, 32, m32)
		r3, r7 = swapBits(r3, r7, 32, m32)
		r0, r2 = swapBits(r0, r2, 16, m16)
		r1, r3 = swapBits(r1, r3, 16, m16)
		r4, r6 = swapBits(r4, r6, 16, m16)
		r5, r7 = swapBits(r5, r7, 16, m16)
		r0, r1 = swapBits(r0, r1, 8, m8)
		r2, r3 = swapBits(r2, r3, 8, m8)
		r4, r5 = swapBits(r4, r5, 8, m8)
		r6, r7 = swapBits(r6, r7, 8, m8)
		a[g], a[g+8], a[g+16], a[g+24] = r0, r1, r2, r3
		a[g+32], a[g+40], a[g+48], a[g+56] = r4, r5, r6, r7
	}
	for g := 0; g < 64; g += 8 {
		r := (*[8]uint64)(a[g : g+8])
		r0, r1, r2, r3, r4, r5, r6, r7 := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		r0, r4 = swapBits(r0, r4, 4, m4)
		r1, r5 = swapBits(r1, r5, 4, m4)
		r2, r6 = swapBits(r2, r6, 4, m4)
		r3, r7 = swapBits(r3, r7, 4, m4)
		r0, r2 = swapBits(r0, r2, 2, m2)
		r1, r3 = swapBits(r1, r3, 2, m2)
		r4, r6 = swapBits(r4, r6, 2, m2)
		r5, r7 = swapBits(r5, r7, 2, m2)
		r0, r1 = swapBits(r0, r1, 1, m1)
		r2, r3 = swapBits(r2, r3, 1, m1)
		r4, r5 = swapBits(r4, r5, 1, m1)
		r6, r7 = swapBits(r6, r7, 1, m1)
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = r0, r1, r2, r3, r4, r5, r6, r7
	}
}

// swapBits exchanges the bits of x under m<<s with the bits of y under m.
func swapBits(x, y uint64, s uint, m uint64) (uint64, uint64) {
	t := (x>>s ^ y) & m
	return x ^ t<<s, y ^ t
}
