package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// # Coalescer units (003_*)
//
// Let L = lanes and A = addr_bits. addr_i carries one A-bit address per
// lane: lane k occupies bits k*A .. k*A+A-1, lane 0 in the least
// significant bits (a lane may straddle a 64-bit word boundary). Addresses
// are unsigned. The block address of lane k is blk(k) = addr(k) >> block_bits.
//
//	unit                   structure    inputs (in order)  outputs (in order)
//	coalescer              all_to_all   addr_i[L*A]        unique_o[L]
//	coalescer              neighbor     addr_i[L*A]        unique_o[L]
//	coalescer              speculative  addr_i[L*A]        unique_o[L] monotonic_o[1]
//	monotonicity_detector  -            addr_i[L*A]        nondecreasing_o[1] nonincreasing_o[1]
//	                                                       monotonic_o[1]
//
// Functions (bit i of unique_o belongs to lane i):
//
//   - all_to_all (003 sections 3.1, 4.1.3): unique_o[i] = 1 when no later
//     lane j > i has blk(j) == blk(i). Lane L-1 is always unique.
//   - neighbor (003 sections 3.2, 4.1.4): unique_o[i] = blk(i) != blk(i+1)
//     for i < L-1, and unique_o[L-1] = 1. It is guaranteed to equal
//     all_to_all only when the warp's block addresses are monotonic.
//   - speculative (003 section 3.4): monotonic_o = the full addresses (not
//     the block addresses) are non-decreasing or non-increasing in lane
//     order; unique_o is the neighbor result when monotonic_o is 1 and the
//     all_to_all result otherwise. Monotonic full addresses give monotonic
//     block addresses, so unique_o always equals the all_to_all result.
//   - monotonicity_detector (003 sections 3.3, 4.1.5): nondecreasing_o =
//     addr(i) <= addr(i+1) for every i < L-1; nonincreasing_o = addr(i) >=
//     addr(i+1) for every i < L-1; monotonic_o = nondecreasing_o OR
//     nonincreasing_o. The adder only picks the subtractor's hardware; it
//     does not change the function.
//
// ForCoalescer and ForMonotonicityDetector refuse lanes outside 2..128, addr_bits outside 1..64, a
// coalescer's block_bits outside 0..addr_bits-1 and an unknown coalescer
// structure. The adder is not checked: it does not change the function.

// Port names of the coalescer family.
const (
	portAddr          = "addr_i"
	portUnique        = "unique_o"
	portMonotonic     = "monotonic_o"
	portNondecreasing = "nondecreasing_o"
	portNonincreasing = "nonincreasing_o"
)

// checkLanes checks the fields shared by coalescers and detectors.
func checkLanes(lanes, addrBits int) error {
	if lanes < 2 || lanes > specs.MaxLanes {
		return fmt.Errorf("lanes = %d, want 2..%d", lanes, specs.MaxLanes)
	}
	if addrBits < 1 || addrBits > specs.MaxLaneAddrBits {
		return fmt.Errorf("addr_bits = %d, want 1..%d", addrBits, specs.MaxLaneAddrBits)
	}
	return nil
}

// loadLanes extracts the len(dst) lane addresses of addrBits bits each from
// the addr_i port value v (lane k at bits k*addrBits ..). Bits above the
// last lane are never read.
func loadLanes(dst []uint64, v []uint64, addrBits int) {
	mask := lowMask(addrBits)
	for k := range dst {
		lo := k * addrBits
		w, s := lo/64, lo%64
		x := v[w] >> s
		if s+addrBits > 64 { // straddles into the next word (s > 0 here)
			x |= v[w+1] << (64 - s)
		}
		dst[k] = x & mask
	}
}

// monotonicity reports whether a is non-decreasing and whether it is
// non-increasing (unsigned).
func monotonicity(a []uint64) (nondecreasing, nonincreasing bool) {
	nondecreasing, nonincreasing = true, true
	for i := 0; i+1 < len(a); i++ {
		if a[i] > a[i+1] {
			nondecreasing = false
		}
		if a[i] < a[i+1] {
			nonincreasing = false
		}
	}
	return nondecreasing, nonincreasing
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------------
// coalescer

type coalescer struct {
	structure specs.Structure
	lanes     int
	addrBits  int
	blockBits int
	ports     []Port
}

// ForCoalescer returns the model of a coalescer unit; its errors name the
// unit.
func ForCoalescer(c *specs.Coalescer) (Model, error) {
	if c == nil {
		return nil, errors.New("model: nil coalescer unit")
	}
	m, err := newCoalescer(c)
	if err != nil {
		return nil, fmt.Errorf("model: coalescer %q (%s): %w", c.Name, c.Structure, err)
	}
	return m, nil
}

func newCoalescer(c *specs.Coalescer) (*coalescer, error) {
	if err := checkLanes(c.Lanes, c.AddrBits); err != nil {
		return nil, err
	}
	if c.BlockBits < 0 || c.BlockBits >= c.AddrBits {
		return nil, fmt.Errorf("block_bits = %d, want 0..%d", c.BlockBits, c.AddrBits-1)
	}
	m := &coalescer{structure: c.Structure, lanes: c.Lanes, addrBits: c.AddrBits, blockBits: c.BlockBits}
	m.ports = []Port{
		{Name: portAddr, Width: c.Lanes * c.AddrBits},
		{Name: portUnique, Width: c.Lanes, Output: true},
	}
	switch c.Structure {
	case specs.AllToAll, specs.Neighbor:
	case specs.Speculative:
		m.ports = append(m.ports, Port{Name: portMonotonic, Width: 1, Output: true})
	default:
		return nil, fmt.Errorf("unknown coalescer structure %q", c.Structure)
	}
	return m, nil
}

func (c *coalescer) Ports() []Port { return c.ports }

// Eval keeps its lane scratch in a fixed-size array on the stack, so it
// neither allocates nor shares state: it is safe for concurrent use.
func (c *coalescer) Eval(in, out [][]uint64) {
	checkLens(c.ports, in, out)
	var buf [specs.MaxLanes]uint64
	addrs := buf[:c.lanes]
	loadLanes(addrs, in[0], c.addrBits)

	useNeighbor := c.structure == specs.Neighbor
	if c.structure == specs.Speculative {
		// Monotonicity of the full addresses, not the block addresses.
		up, down := monotonicity(addrs)
		useNeighbor = up || down
		putField(out[1], 1, b2u(useNeighbor))
	}

	// From here on only block addresses matter.
	for k := range addrs {
		addrs[k] >>= c.blockBits
	}
	unique := out[0]
	clear(unique)
	L := c.lanes
	if useNeighbor {
		for i := 0; i+1 < L; i++ {
			setBit(unique, i, b2u(addrs[i] != addrs[i+1]))
		}
	} else {
		for i := 0; i+1 < L; i++ {
			u := true
			for j := i + 1; j < L; j++ {
				if addrs[j] == addrs[i] {
					u = false
					break
				}
			}
			setBit(unique, i, b2u(u))
		}
	}
	setBit(unique, L-1, 1)
}

// ---------------------------------------------------------------------------
// monotonicity_detector

type monotonicityDetector struct {
	lanes    int
	addrBits int
	ports    []Port
}

// ForMonotonicityDetector returns the model of a monotonicity detector; its
// errors name the unit.
func ForMonotonicityDetector(d *specs.MonotonicityDetector) (Model, error) {
	if d == nil {
		return nil, errors.New("model: nil monotonicity_detector unit")
	}
	if err := checkLanes(d.Lanes, d.AddrBits); err != nil {
		return nil, fmt.Errorf("model: monotonicity_detector %q: %w", d.Name, err)
	}
	return &monotonicityDetector{
		lanes: d.Lanes, addrBits: d.AddrBits,
		ports: []Port{
			{Name: portAddr, Width: d.Lanes * d.AddrBits},
			{Name: portNondecreasing, Width: 1, Output: true},
			{Name: portNonincreasing, Width: 1, Output: true},
			{Name: portMonotonic, Width: 1, Output: true},
		},
	}, nil
}

func (d *monotonicityDetector) Ports() []Port { return d.ports }

// Eval keeps its lane scratch in a fixed-size array on the stack, so it
// neither allocates nor shares state: it is safe for concurrent use.
func (d *monotonicityDetector) Eval(in, out [][]uint64) {
	checkLens(d.ports, in, out)
	var buf [specs.MaxLanes]uint64
	addrs := buf[:d.lanes]
	loadLanes(addrs, in[0], d.addrBits)
	up, down := monotonicity(addrs)
	putField(out[0], 1, b2u(up))
	putField(out[1], 1, b2u(down))
	putField(out[2], 1, b2u(up || down))
}
