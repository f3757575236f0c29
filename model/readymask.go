package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// # Warp ready mask (001_* section 4, Figure 7)
//
// ReadyMask models the bank-conflict aware warp ready signal generation:
// the bank conflict history cache, the last_warp_bkconf_degree counter C,
// the warp_bkconf_degree accumulator A and its subwarp counter K.
//
// The history cache is kept per set as a list of ways, way 0 first, each
// with a valid flag, its tag and its stored degree, plus the set's
// replacement pointer.

// ReadyIn is one cycle's inputs of the warp ready mask (W <= 64 warps as
// bit masks).
type ReadyIn struct {
	Launch     bool
	Ready      uint64 // warp_ready_i; bit w = warp w
	IsMem      uint64 // warp_is_mem_i
	SchedValid bool
	SchedShmem bool
	SchedPC    uint64 // only the low pc_bits are used
	ResValid   bool
	ResPC      uint64 // only the low pc_bits are used
	ResDegree  int    // one subwarp's conflict degree; below 1 counts as 1
}

// ReadyOut is one cycle's outputs of the warp ready mask.
type ReadyOut struct {
	Ready uint64 // warp_ready_o (bits at and above warp_contexts are 0)
	Mask  bool   // mask_o
	// Pred and Hit: the history lookup of SchedPC in this cycle, in the
	// cache as it stands at the start of the cycle (model-only,
	// meaningful when SchedValid && SchedShmem; computed whatever they
	// are). Pred is 0 on a miss.
	Pred int
	Hit  bool
}

// historyWay is one way of a history cache set.
type historyWay struct {
	valid  bool
	tag    uint64
	degree uint64
}

// ReadyMask is the cycle-accurate model of a warp_ready_mask unit.
type ReadyMask struct {
	subwarps  int    // S
	portLog   uint   // log2(shmem_ports)
	indexBits uint   // IB
	setMask   uint64 // history_sets - 1
	tagMask   uint64 // 2^TB - 1
	pcMask    uint64 // 2^PC - 1
	degMask   uint64 // 2^HB - 1: stored degrees and the accumulator wrap
	warpMask  uint64 // 2^W - 1

	sets [][]historyWay // sets[s][w]
	ptr  []int          // per set: the way replaced when all are valid

	count int    // C, last_warp_bkconf_degree
	acc   uint64 // A
	sub   int    // K, subwarps accumulated so far
}

// checkReadyMaskSpec returns why w cannot be modelled, or nil.
func checkReadyMaskSpec(w *specs.WarpReadyMask) error {
	if w == nil {
		return errors.New("nil warp_ready_mask unit")
	}
	if w.WarpContexts < 1 || w.WarpContexts > 64 {
		return fmt.Errorf("warp_contexts = %d, want 1..64", w.WarpContexts)
	}
	ib, ok := log2Exact(w.HistorySets)
	if !ok {
		return fmt.Errorf("history_sets = %d, want a power of two", w.HistorySets)
	}
	if w.HistoryWays < 1 || w.HistoryWays > specs.MaxHistoryWays {
		return fmt.Errorf("history_ways = %d, want 1..%d", w.HistoryWays, specs.MaxHistoryWays)
	}
	if w.PCBits < ib || w.PCBits > 64 {
		return fmt.Errorf("pc_bits = %d, want %d..64", w.PCBits, ib)
	}
	if _, ok := log2Exact(w.SIMDWidth); !ok {
		return fmt.Errorf("simd_width = %d, want a power of two", w.SIMDWidth)
	}
	if _, ok := log2Exact(w.WarpSize); !ok || w.WarpSize < 2 || w.WarpSize < w.SIMDWidth {
		return fmt.Errorf("warp_size = %d, want a power of two >= 2 and >= simd_width = %d", w.WarpSize, w.SIMDWidth)
	}
	if w.WarpSize/w.SIMDWidth-1 > specs.MaxQueueDepth {
		return fmt.Errorf("warp_size / simd_width = %d, want at most %d", w.WarpSize/w.SIMDWidth, specs.MaxQueueDepth+1)
	}
	if _, ok := log2Exact(w.ShmemPorts); !ok {
		return fmt.Errorf("shmem_ports = %d, want a power of two", w.ShmemPorts)
	}
	return nil
}

// NewReadyMask returns the model of w in the reset state. It panics on a
// configuration ForReadyMask refuses (warp_contexts outside 1..64,
// history_sets not a power of two, history_ways outside 1..8, pc_bits
// below log2(history_sets) or above 64, sizes that are not powers of two,
// warp_size < 2 or < simd_width, more than 17 subwarps).
func NewReadyMask(w *specs.WarpReadyMask) *ReadyMask {
	if err := checkReadyMaskSpec(w); err != nil {
		panic("model: NewReadyMask: " + err.Error())
	}
	ib, _ := log2Exact(w.HistorySets)
	hb, _ := log2Exact(w.WarpSize)
	m := &ReadyMask{
		subwarps:  w.WarpSize / w.SIMDWidth,
		indexBits: uint(ib),
		setMask:   uint64(w.HistorySets - 1),
		tagMask:   lowMask(w.PCBits - ib),
		pcMask:    lowMask(w.PCBits),
		degMask:   lowMask(hb),
		warpMask:  lowMask(w.WarpContexts),
		sets:      make([][]historyWay, w.HistorySets),
		ptr:       make([]int, w.HistorySets),
	}
	pl, _ := log2Exact(w.ShmemPorts)
	m.portLog = uint(pl)
	ways := make([]historyWay, w.HistorySets*w.HistoryWays)
	for s := range m.sets {
		m.sets[s] = ways[s*w.HistoryWays : (s+1)*w.HistoryWays : (s+1)*w.HistoryWays]
	}
	return m
}

// Reset puts the unit in the reset state (the same as a kernel launch):
// every history entry invalid, every replacement pointer 0, C = A = K = 0.
func (m *ReadyMask) Reset() {
	for _, set := range m.sets {
		clear(set)
	}
	clear(m.ptr)
	m.count, m.acc, m.sub = 0, 0, 0
}

// Counter is the current value of the last_warp_bkconf_degree counter C.
func (m *ReadyMask) Counter() int { return m.count }

// split returns the set index and the tag of a PC.
func (m *ReadyMask) split(pc uint64) (set int, tag uint64) {
	pc &= m.pcMask
	return int(pc & m.setMask), (pc >> m.indexBits) & m.tagMask
}

// find returns the way of set that holds tag, or -1.
func (m *ReadyMask) find(set int, tag uint64) int {
	for w, e := range m.sets[set] {
		if e.valid && e.tag == tag {
			return w
		}
	}
	return -1
}

// Lookup returns the stored degree of pc and whether it is in the cache.
func (m *ReadyMask) Lookup(pc uint64) (pred int, hit bool) {
	set, tag := m.split(pc)
	if w := m.find(set, tag); w >= 0 {
		return int(m.sets[set][w].degree), true
	}
	return 0, false
}

// record writes a resolved warp's degree v for pc.
func (m *ReadyMask) record(pc, v uint64) {
	set, tag := m.split(pc)
	ways := m.sets[set]
	if w := m.find(set, tag); w >= 0 {
		ways[w].degree = v
		return
	}
	victim := -1
	for w, e := range ways {
		if !e.valid {
			victim = w
			break
		}
	}
	if victim < 0 {
		victim = m.ptr[set]
		m.ptr[set] = (victim + 1) % len(ways)
	}
	ways[victim] = historyWay{valid: true, tag: tag, degree: v}
}

// Cycle computes the outputs of the current cycle for the state and in,
// then advances the state by one clock edge.
func (m *ReadyMask) Cycle(in ReadyIn) ReadyOut {
	var out ReadyOut
	out.Mask = m.count != 0
	out.Ready = in.Ready & m.warpMask
	if out.Mask {
		out.Ready &^= in.IsMem
	}
	out.Pred, out.Hit = m.Lookup(in.SchedPC)

	if in.Launch {
		m.Reset()
		return out
	}

	// The counter: loaded with warp_safe_mem_dist - 1 when a shared
	// memory warp is scheduled (eq. 5 with the stored sum - S), else
	// counting down to 0.
	switch {
	case in.SchedValid && in.SchedShmem:
		m.count = (out.Pred + m.subwarps - 1) >> m.portLog
	case m.count != 0:
		m.count--
	}

	// The accumulator and the history cache (after the lookup above).
	if in.ResValid {
		var d uint64
		if in.ResDegree > 1 {
			d = uint64(in.ResDegree - 1)
		}
		sum := (m.acc + d) & m.degMask
		if m.sub == m.subwarps-1 {
			m.record(in.ResPC, sum)
			m.acc, m.sub = 0, 0
		} else {
			m.acc, m.sub = sum, m.sub+1
		}
	}
	return out
}

// seqReadyMask is the port-level warp_ready_mask:
//
//	inputs  rst[1] launch_i[1] warp_ready_i[W] warp_is_mem_i[W]
//	        sched_valid_i[1] sched_shmem_i[1] sched_pc_i[PC]
//	        res_valid_i[1] res_pc_i[PC] res_degree_i[DB]
//	outputs warp_ready_o[W] mask_o[1]
type seqReadyMask struct {
	m       *ReadyMask
	ports   []Port
	degMask uint64
}

func newSeqReadyMask(u *specs.WarpReadyMask) *seqReadyMask {
	W, PC, DB := u.WarpContexts, u.PCBits, u.DegreeBits()
	return &seqReadyMask{
		m: NewReadyMask(u),
		ports: []Port{
			{Name: "rst", Width: 1},
			{Name: "launch_i", Width: 1},
			{Name: "warp_ready_i", Width: W},
			{Name: "warp_is_mem_i", Width: W},
			{Name: "sched_valid_i", Width: 1},
			{Name: "sched_shmem_i", Width: 1},
			{Name: "sched_pc_i", Width: PC},
			{Name: "res_valid_i", Width: 1},
			{Name: "res_pc_i", Width: PC},
			{Name: "res_degree_i", Width: DB},
			{Name: "warp_ready_o", Width: W, Output: true},
			{Name: "mask_o", Width: 1, Output: true},
		},
		degMask: lowMask(DB),
	}
}

func (s *seqReadyMask) Ports() []Port { return s.ports }
func (s *seqReadyMask) Reset()        { s.m.Reset() }

func (s *seqReadyMask) Cycle(in, out [][]uint64) {
	checkLens(s.ports, in, out)
	// rst and launch_i lead to the same next state, and neither changes
	// this cycle's outputs.
	o := s.m.Cycle(ReadyIn{
		Launch:     (in[0][0]|in[1][0])&1 != 0,
		Ready:      in[2][0],
		IsMem:      in[3][0],
		SchedValid: in[4][0]&1 != 0,
		SchedShmem: in[5][0]&1 != 0,
		SchedPC:    in[6][0],
		ResValid:   in[7][0]&1 != 0,
		ResPC:      in[8][0],
		ResDegree:  int(in[9][0] & s.degMask),
	})
	out[0][0] = o.Ready
	out[1][0] = b2u(o.Mask)
}
