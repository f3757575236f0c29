package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// # Coalescer units (003_*)
//
// Let L = lanes, A = addr_bits, B = A - block_bits, C = clog2(L+1) and
// R = clog2(L). addr_i carries one A-bit address per lane: lane k occupies
// bits k*A .. k*A+A-1, lane 0 in the least significant bits (a lane may
// straddle a 64-bit word boundary). Addresses are unsigned. The block
// address of lane k is blk(k) = addr(k) >> block_bits.
//
//	unit                   structure    options      inputs (in order)   outputs (in order)
//	coalescer              all_to_all   -            addr_i[L*A]         unique_o[L]
//	coalescer              neighbor     -            addr_i[L*A]         unique_o[L]
//	coalescer              speculative  -            addr_i[L*A]         unique_o[L] monotonic_o[1]
//	coalescer              any          active_mask  addr_i[L*A]         as without it
//	                                                 active_i[L]
//	coalescer              any          requests     as without it       as without it, then
//	                                                                     req_count_o[C] req_addr_o[L*B]
//	                                                                     req_mask_o[L*L] lane_req_o[L*R]
//	monotonicity_detector  -            -            addr_i[L*A]         nondecreasing_o[1] nonincreasing_o[1]
//	                                                                     monotonic_o[1]
//	monotonicity_detector  -            active_mask  addr_i[L*A]         as without it
//	                                                 active_i[L]
//
// Lane k is active when bit k of active_i is 1; without active_mask every
// lane is active. The active sequence is the active lanes in lane order;
// the next (previous) active lane of lane i is the lowest (highest) active
// lane above (below) i.
//
// Functions (bit i of unique_o belongs to lane i):
//
//   - all_to_all (003 sections 3.1, 4.1.3): unique_o[i] = 1 when lane i is
//     active and no later active lane j > i has blk(j) == blk(i). Without
//     active_mask lane L-1 is always unique.
//   - neighbor (003 sections 3.2, 4.1.4): unique_o[i] = 1 when lane i is
//     active and it is the last active lane or blk(i) != blk(next active
//     lane). Without active_mask: blk(i) != blk(i+1) for i < L-1, and
//     unique_o[L-1] = 1. It is guaranteed to equal all_to_all only when the
//     active lanes' block addresses are monotonic.
//   - speculative (003 section 3.4): monotonic_o = the active lanes' full
//     addresses (not the block addresses) are non-decreasing or
//     non-increasing in lane order; unique_o is the neighbor result when
//     monotonic_o is 1 and the all_to_all result otherwise. Monotonic full
//     addresses give monotonic block addresses, so unique_o always equals
//     the all_to_all result.
//   - monotonicity_detector (003 sections 3.3, 4.1.5): nondecreasing_o =
//     every active lane's address is <= the next active lane's;
//     nonincreasing_o = every active lane's address is >= the next active
//     lane's (both 1 for zero or one active lane); monotonic_o =
//     nondecreasing_o OR nonincreasing_o. The adder only picks the
//     subtractor's hardware; it does not change the function.
//   - requests: the active lanes are grouped into requests, numbered in
//     the order of their lowest active lane. all_to_all: one request per
//     distinct block among the active lanes (exact for any warp). neighbor:
//     a request starts at each active lane that is the first active lane or
//     whose block differs from the previous active lane's, and takes the
//     active lanes up to the next start (exact when the active lanes'
//     addresses are monotonic). speculative: the neighbor requests when
//     monotonic_o is 1, else the all_to_all ones (so always the all_to_all
//     ones). req_count_o = the number of requests; field r (B bits) of
//     req_addr_o = the block of request r's lowest lane; bit i of field r
//     (L bits) of req_mask_o = lane i belongs to request r; field i (R
//     bits) of lane_req_o = the request of lane i, 0 for an inactive lane.
//     Fields at or above req_count_o are 0.
//
// ForCoalescer and ForMonotonicityDetector refuse lanes outside 2..128, addr_bits outside 1..64, a
// coalescer's block_bits outside 0..addr_bits-1 and an unknown coalescer
// structure. The adder is not checked: it does not change the function.

// Port names of the coalescer family.
const (
	portAddr          = "addr_i"
	portActive        = "active_i"
	portUnique        = "unique_o"
	portMonotonic     = "monotonic_o"
	portNondecreasing = "nondecreasing_o"
	portNonincreasing = "nonincreasing_o"
	portReqCount      = "req_count_o"
	portReqAddr       = "req_addr_o"
	portReqMask       = "req_mask_o"
	portLaneReq       = "lane_req_o"
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

// clog2 is the number of bits that hold 0..n-1 (0 for n <= 1).
func clog2(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
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

// activeLanes writes the numbers of the active lanes, in lane order, into
// dst and returns how many there are: the lanes whose bit of the active_i
// value v is set, or every lane when v is nil (no active_mask).
func activeLanes(dst []int, v []uint64, lanes int) int {
	n := 0
	for k := 0; k < lanes; k++ {
		if v == nil || (v[k/64]>>(k%64))&1 == 1 {
			dst[n] = k
			n++
		}
	}
	return n
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
	structure  specs.Structure
	lanes      int
	addrBits   int
	blockBits  int
	activeMask bool
	requests   bool
	// Output indices; -1 where the unit has no such port.
	outMono, outCount, outAddr, outMask, outLaneReq int
	ports                                           []Port
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
	L := c.Lanes
	m := &coalescer{structure: c.Structure, lanes: L, addrBits: c.AddrBits, blockBits: c.BlockBits,
		activeMask: c.ActiveMask, requests: c.Requests,
		outMono: -1, outCount: -1, outAddr: -1, outMask: -1, outLaneReq: -1}
	m.ports = []Port{{Name: portAddr, Width: L * c.AddrBits}}
	if c.ActiveMask {
		m.ports = append(m.ports, Port{Name: portActive, Width: L})
	}
	m.ports = append(m.ports, Port{Name: portUnique, Width: L, Output: true})
	nOut := 1
	switch c.Structure {
	case specs.AllToAll, specs.Neighbor:
	case specs.Speculative:
		m.ports = append(m.ports, Port{Name: portMonotonic, Width: 1, Output: true})
		m.outMono = nOut
		nOut++
	default:
		return nil, fmt.Errorf("unknown coalescer structure %q", c.Structure)
	}
	if c.Requests {
		m.ports = append(m.ports,
			Port{Name: portReqCount, Width: clog2(L + 1), Output: true},
			Port{Name: portReqAddr, Width: L * (c.AddrBits - c.BlockBits), Output: true},
			Port{Name: portReqMask, Width: L * L, Output: true},
			Port{Name: portLaneReq, Width: L * clog2(L), Output: true})
		m.outCount, m.outAddr, m.outMask, m.outLaneReq = nOut, nOut+1, nOut+2, nOut+3
	}
	return m, nil
}

func (c *coalescer) Ports() []Port { return c.ports }

// Eval keeps its lane scratch in fixed-size arrays on the stack, so it
// neither allocates nor shares state: it is safe for concurrent use.
func (c *coalescer) Eval(in, out [][]uint64) {
	checkLens(c.ports, in, out)
	var addrBuf [specs.MaxLanes]uint64
	var actBuf [specs.MaxLanes]int
	addrs := addrBuf[:c.lanes]
	loadLanes(addrs, in[0], c.addrBits)
	var activeIn []uint64
	if c.activeMask {
		activeIn = in[1]
	}
	n := activeLanes(actBuf[:], activeIn, c.lanes)
	act := actBuf[:n] // the active sequence: lane numbers in lane order

	useNeighbor := c.structure == specs.Neighbor
	if c.structure == specs.Speculative {
		// Monotonicity of the active lanes' full addresses, not their
		// block addresses.
		var seq [specs.MaxLanes]uint64
		for k, lane := range act {
			seq[k] = addrs[lane]
		}
		up, down := monotonicity(seq[:n])
		useNeighbor = up || down
		putField(out[c.outMono], 1, b2u(useNeighbor))
	}

	// From here on only block addresses matter.
	for k := range addrs {
		addrs[k] >>= c.blockBits
	}

	// unique_o: over the active sequence.
	unique := out[0]
	clear(unique)
	for k, lane := range act {
		u := true
		if useNeighbor {
			u = k+1 == n || addrs[act[k+1]] != addrs[lane]
		} else {
			for _, later := range act[k+1:] {
				if addrs[later] == addrs[lane] {
					u = false
					break
				}
			}
		}
		setBit(unique, lane, b2u(u))
	}
	if !c.requests {
		return
	}

	// Requests in the order of their lowest active lane: reqLane[r] is
	// request r's lowest lane, laneReq[lane] the request of an active lane.
	var reqLane, laneReq [specs.MaxLanes]int
	count := 0
	for k, lane := range act {
		r := -1
		if useNeighbor {
			// A request starts at the first active lane and wherever the
			// block differs from the previous active lane's.
			if k > 0 && addrs[act[k-1]] == addrs[lane] {
				r = laneReq[act[k-1]]
			}
		} else {
			for q := 0; q < count; q++ {
				if addrs[reqLane[q]] == addrs[lane] {
					r = q
					break
				}
			}
		}
		if r < 0 {
			r = count
			reqLane[count] = lane
			count++
		}
		laneReq[lane] = r
	}

	L, B, R := c.lanes, c.addrBits-c.blockBits, clog2(c.lanes)
	putField(out[c.outCount], clog2(L+1), uint64(count))
	reqAddr, reqMask, laneReqOut := out[c.outAddr], out[c.outMask], out[c.outLaneReq]
	clear(reqAddr)
	clear(reqMask)
	clear(laneReqOut)
	for r := 0; r < count; r++ {
		blk := addrs[reqLane[r]]
		for b := 0; b < B; b++ {
			setBit(reqAddr, r*B+b, blk>>b)
		}
	}
	for _, lane := range act {
		r := laneReq[lane]
		setBit(reqMask, r*L+lane, 1)
		for b := 0; b < R; b++ {
			setBit(laneReqOut, lane*R+b, uint64(r)>>b)
		}
	}
}

// ---------------------------------------------------------------------------
// monotonicity_detector

type monotonicityDetector struct {
	lanes      int
	addrBits   int
	activeMask bool
	ports      []Port
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
	ports := []Port{{Name: portAddr, Width: d.Lanes * d.AddrBits}}
	if d.ActiveMask {
		ports = append(ports, Port{Name: portActive, Width: d.Lanes})
	}
	ports = append(ports,
		Port{Name: portNondecreasing, Width: 1, Output: true},
		Port{Name: portNonincreasing, Width: 1, Output: true},
		Port{Name: portMonotonic, Width: 1, Output: true})
	return &monotonicityDetector{lanes: d.Lanes, addrBits: d.AddrBits, activeMask: d.ActiveMask, ports: ports}, nil
}

func (d *monotonicityDetector) Ports() []Port { return d.ports }

// Eval keeps its lane scratch in fixed-size arrays on the stack, so it
// neither allocates nor shares state: it is safe for concurrent use.
func (d *monotonicityDetector) Eval(in, out [][]uint64) {
	checkLens(d.ports, in, out)
	var addrBuf, seq [specs.MaxLanes]uint64
	var actBuf [specs.MaxLanes]int
	addrs := addrBuf[:d.lanes]
	loadLanes(addrs, in[0], d.addrBits)
	var activeIn []uint64
	if d.activeMask {
		activeIn = in[1]
	}
	n := activeLanes(actBuf[:], activeIn, d.lanes)
	for k, lane := range actBuf[:n] {
		seq[k] = addrs[lane]
	}
	up, down := monotonicity(seq[:n])
	putField(out[0], 1, b2u(up))
	putField(out[1], 1, b2u(down))
	putField(out[2], 1, b2u(up || down))
}
