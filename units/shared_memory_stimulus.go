package units

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// Shared memory: warp instructions in traffic phases over a working
// region of the storage, every word written before it is read.

const (
	shmPhMixed = iota
	shmPhConflictFree
	shmPhBroadcast
	shmPhOneBank
	shmPhStrided
	shmPhAtomics
	shmPhRefused
	shmPhFill
	shmPhIdle
	shmNumPhases
)

var shmPhaseNames = [shmNumPhases]string{"mixed", "conflict-free", "broadcast", "one bank", "strided", "atomics", "refused", "fill", "idle"}

// Address patterns of an instruction.
const (
	shmPatConflictFree = iota
	shmPatBroadcast
	shmPatOneBank
	shmPatPow2Stride
	shmPatOddStride
	shmPatRandom
	shmPatSweep // fill: consecutive, every lane
	shmNumPatterns
)

var shmPatternNames = [shmNumPatterns]string{"conflict-free", "broadcast", "one bank", "power-of-two stride", "odd stride", "random", "sweep"}

// Reasons to refuse an instruction, as the stimulus makes them.
const (
	shmRefBadOp = iota
	shmRefAtomic
	shmRefAtomicWidth
	shmRefWidth3
	shmRefWidth
	shmRefMisaligned
	shmRefRange
	shmNumRefusals
)

var shmRefusalNames = [shmNumRefusals]string{"op > 11", "unsupported atomic", "wide atomic", "width code 3", "unsupported width", "misaligned", "out of range"}

// shmRegionBytes bounds the working region, so that loads find written
// words soon after the stores that wrote them.
const shmRegionBytes = 4096

// shmInstr is the instruction on offer.
type shmInstr struct {
	op      uint64 // req_op_i, may be >= 12
	wc      uint64 // req_width_i
	active  uint64
	addr    [specs.MaxShmemLanes]int
	data    [specs.MaxShmemLanes][2]uint64
	cmp     [specs.MaxShmemLanes]uint32
	pattern int
	refusal int // -1: accepted as valid
}

type shmStim struct {
	r                                   *rand.Rand
	u                                   *specs.SharedMemory
	lanes, addrBits, maxW, bytes, banks int
	// inputs and outputs
	rst, valid, op, width, active, addr, data, cmp, rspReady int
	cfgIn                                                    []int
	ready, rspValid, rspError, rspPasses                     int

	cfg     [][]uint64 // the configuration, held for the stream
	hash    model.Model
	hin     [][]uint64
	hout    [][]uint64
	bankOut int

	written                []bool // 4-byte granules written since the last reset
	regionLo, regionSize   int
	regionBanks            [][]int // word addresses of the region, by bank
	ph                     *verify.Phaser
	cur                    shmInstr
	pending, busy          bool
	readyLow               bool
	readyLeft, rstLeft     int
	sweep                  int // the fill phase's next slot
	widthsOK               [4]bool
	atomics, missingAtomic []specs.ShmemOp

	// coverage
	ops                              [16]int
	widths                           [3]int
	patterns                         [shmNumPatterns]int
	refusals                         [shmNumRefusals]int
	fullMasks, partial, single, nil0 int
	converted, stalled, responses    int
	errors, maxPasses                int
	resets, resetsBusy               int
	lowCycles, lowRun, maxLowRun     int
}

// sharedMemoryStimulus drives a shared memory: warp instructions in
// phases (mixed, conflict-free, broadcast-heavy, one bank, strided with
// power-of-two and odd strides, atomics, refused, a store sweep of the
// working region, idle), loads, stores and every supported atomic at every
// supported width with full, partial, single-lane and empty masks, and
// refused instructions of every kind the spec allows; rsp_ready_i low for
// long stretches and rare resets, mostly while instructions are in
// flight. An instruction is offered until it is accepted. Loads and
// atomics touch only bytes written since the last reset (a load or atomic
// that would read others becomes a store to the same addresses), so the
// stream is valid whatever the storage held before a reset (the harness
// may start segments from a fresh unit). A configurable hash gets one
// random configuration for the stream, one under which the storage rows
// stay a bijection.
func sharedMemoryStimulus(u *specs.SharedMemory) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		return newShmStim(u, verify.NewPortMap(ports), verify.StimulusRand(seed))
	}
}

func newShmStim(u *specs.SharedMemory, pm *verify.PortMap, r *rand.Rand) (*shmStim, error) {
	if len(u.Widths) == 0 || u.NumBanks() < 2 || u.Lanes < 1 || u.Lanes > specs.MaxShmemLanes {
		return nil, fmt.Errorf("stimulus: %s: not a valid shared memory", u.Name)
	}
	L, A, W := u.Lanes, u.AddrBits(), u.MaxWidth()
	s := &shmStim{
		r: r, u: u, lanes: L, addrBits: A, maxW: W, bytes: u.Bytes, banks: u.NumBanks(),
		rst:       pm.In(verify.ResetPort, 1),
		valid:     pm.In("req_valid_i", 1),
		op:        pm.In("req_op_i", 4),
		width:     pm.In("req_width_i", 2),
		active:    pm.In("req_active_i", L),
		addr:      pm.In("req_addr_i", L*A),
		data:      pm.In("req_data_i", L*W),
		cmp:       pm.In("req_cmp_i", L*32),
		rspReady:  pm.In("rsp_ready_i", 1),
		ready:     pm.Out("req_ready_o", 1),
		rspValid:  pm.Out("rsp_valid_o", 1),
		rspError:  pm.Out("rsp_error_o", 1),
		rspPasses: pm.Out("rsp_passes_o", u.PassBits()),
		written:   make([]bool, u.Bytes/4),
		ph:        verify.NewPhaser(r, []int{4, 2, 2, 2, 2, 2, 1, 1, 1}),
	}
	pm.Out("rsp_data_o", L*W)
	pm.Out("rsp_active_o", L)
	for _, w := range u.Widths {
		c, _ := specs.ShmemWidthOf(w)
		s.widthsOK[c] = true
	}
	for _, a := range specs.ShmemAtomics {
		if u.HasAtomic(a) {
			s.atomics = append(s.atomics, a)
		} else {
			s.missingAtomic = append(s.missingAtomic, a)
		}
	}
	if err := s.setUpHash(pm); err != nil {
		return nil, err
	}
	if pm.Err() != nil {
		return nil, pm.Err()
	}
	s.newRegion()
	return s, nil
}

// setUpHash builds the hash model that tells the stimulus the banks, and
// draws the configuration of a configurable hash.
func (s *shmStim) setUpHash(pm *verify.PortMap) error {
	h := s.u.Hash.Hash()
	if h == nil {
		return nil
	}
	m, err := model.ForHash(h)
	if err != nil {
		return err
	}
	s.hash = m
	wb := s.u.WordBits()
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			if p.Name == "bank_o" {
				s.bankOut = len(s.hout)
			}
			s.hout = append(s.hout, v)
			continue
		}
		if p.Name != "addr_i" {
			s.cfgIn = append(s.cfgIn, pm.In("hash_"+p.Name, p.Width))
			s.cfg = append(s.cfg, v)
		}
		s.hin = append(s.hin, v)
	}
	if !h.Configurable {
		return nil
	}
	// A configuration under which (bank, row) stays a bijection: the bank
	// window inside the word address, and bitvector_xor's second shift
	// away from the first (or no mask).
	m0 := h.BankBits
	limit := min(h.AddrBits, wb)
	switch h.Function {
	case specs.BitvectorPerm:
		s.cfg[0][0] = uint64(s.r.IntN(limit - m0 + 1))
	case specs.BitvectorXor:
		k1 := s.r.IntN(limit - m0 + 1)
		k2 := s.r.IntN(h.AddrBits)
		mask := s.r.Uint64() & verify.Mask(m0)
		if k2 == k1 {
			k2 = (k1 + 1 + s.r.IntN(h.AddrBits-1)) % h.AddrBits
		}
		s.cfg[0][0], s.cfg[1][0], s.cfg[2][0] = uint64(k1), uint64(k2), mask
	case specs.RAP:
		for w := range s.cfg[0] {
			s.cfg[0][w] = s.r.Uint64()
		}
		if n := len(s.cfg[0])*64 - m.Ports()[1].Width; n > 0 {
			s.cfg[0][len(s.cfg[0])-1] &= verify.Mask(64 - n)
		}
	default:
		return fmt.Errorf("stimulus: %s: no storage row for a configurable %s", s.u.Name, h.Function)
	}
	return nil
}

// bankOf is the bank of word address w under the stream's configuration.
func (s *shmStim) bankOf(w int) int {
	if s.hash == nil {
		return w % s.banks
	}
	s.hin[0][0] = uint64(w) & verify.Mask(s.u.Hash.Hash().AddrBits)
	for k, v := range s.cfg {
		copy(s.hin[1+k], v)
	}
	s.hash.Eval(s.hin, s.hout)
	return int(s.hout[s.bankOut][0])
}

// newRegion picks the working region and the banks of its words.
func (s *shmStim) newRegion() {
	s.regionSize = min(s.bytes, shmRegionBytes)
	s.regionLo = s.r.IntN((s.bytes-s.regionSize)/16+1) * 16
	s.regionBanks = make([][]int, s.banks)
	bb := s.u.BankBytes
	for w := s.regionLo / bb; w < (s.regionLo+s.regionSize)/bb; w++ {
		b := s.bankOf(w)
		s.regionBanks[b] = append(s.regionBanks[b], w)
	}
}

func (s *shmStim) Next(in [][]uint64) {
	if s.ph.Next(func(p int) int {
		if p == shmPhIdle {
			return verify.Span(s.r, 20, 300)
		}
		return verify.Span(s.r, 50, 400)
	}) && s.r.IntN(6) == 0 {
		s.newRegion()
	}
	// rsp_ready_i: high, low for long stretches, or random.
	if s.readyLeft == 0 {
		s.readyLeft = verify.Span(s.r, 10, 400)
		s.readyLow = s.r.IntN(8) == 0
	}
	s.readyLeft--
	if !s.readyLow && s.r.IntN(6) != 0 {
		in[s.rspReady][0] = 1
	}
	// Resets: rare, mostly with instructions in flight.
	if s.rstLeft == 0 && (s.r.IntN(20000) == 0 || s.busy && s.r.IntN(2500) == 0) {
		s.rstLeft = verify.Span(s.r, 1, 2)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	for k, v := range s.cfg {
		copy(in[s.cfgIn[k]], v)
	}
	pValid := 0.9
	if s.ph.Phase() == shmPhIdle {
		pValid = 0.05
	}
	if s.pending && s.readsUnwritten(&s.cur) {
		s.pending = false // a reset forgot what it reads
	}
	if !s.pending && s.r.Float64() < pValid {
		s.generate()
		s.pending = true
	}
	if !s.pending {
		if s.r.IntN(2) == 0 { // junk beside req_valid_i = 0
			for _, p := range []int{s.op, s.width, s.active, s.addr, s.data, s.cmp} {
				for k := range in[p] {
					in[p][k] = s.r.Uint64()
				}
			}
		}
		return
	}
	x := &s.cur
	in[s.valid][0] = 1
	in[s.op][0] = x.op
	in[s.width][0] = x.wc
	in[s.active][0] = x.active
	for i := 0; i < s.lanes; i++ {
		putLaneBits(in[s.addr], i*s.addrBits, s.addrBits, uint64(x.addr[i]))
		putLaneBits(in[s.data], i*s.maxW, min(64, s.maxW), x.data[i][0])
		if s.maxW == 128 {
			putLaneBits(in[s.data], i*s.maxW+64, 64, x.data[i][1])
		}
		putLaneBits(in[s.cmp], i*32, 32, uint64(x.cmp[i]))
	}
}

// putLaneBits writes the low n bits of x at bit lo of v (v zeroed).
func putLaneBits(v []uint64, lo, n int, x uint64) {
	x &= verify.Mask(n)
	w, b := lo/64, uint(lo%64)
	v[w] |= x << b
	if int(b)+n > 64 {
		v[w+1] |= x >> (64 - b)
	}
}

// bytesOf is the access size of width code wc in bytes.
func bytesOf(wc uint64) int { return specs.ShmemWidth(wc).Bits() / 8 }

// readsUnwritten reports whether x, valid and reading, would read a
// granule not written since the last reset.
func (s *shmStim) readsUnwritten(x *shmInstr) bool {
	if x.refusal >= 0 || specs.ShmemOp(x.op) == specs.ShmemStore {
		return false
	}
	n := bytesOf(x.wc)
	for i := 0; i < s.lanes; i++ {
		if x.active>>i&1 == 1 {
			for g := x.addr[i] / 4; g < (x.addr[i]+n)/4; g++ {
				if !s.written[g] {
					return true
				}
			}
		}
	}
	return false
}

// generate draws the next instruction for the current phase.
func (s *shmStim) generate() {
	x := &s.cur
	*x = shmInstr{refusal: -1}
	phase := s.ph.Phase()
	// The operation.
	kind := s.r.IntN(10) // 0-3 load, 4-6 store, 7-8 atomic, 9 refused
	switch phase {
	case shmPhAtomics:
		kind = 7 + s.r.IntN(2)
		if s.r.IntN(4) == 0 {
			kind = 4 // stores of small values for cas to match
		}
	case shmPhRefused:
		if s.r.IntN(2) == 0 {
			kind = 9
		}
	case shmPhFill:
		kind = 4
	}
	if kind == 9 && s.r.IntN(3) != 0 && phase != shmPhRefused {
		kind = s.r.IntN(9)
	}
	op := specs.ShmemLoad
	switch {
	case kind >= 4 && kind <= 6:
		op = specs.ShmemStore
	case kind >= 7 && kind <= 8 && len(s.atomics) > 0 && s.widthsOK[specs.ShmemW32]:
		op = s.atomics[s.r.IntN(len(s.atomics))]
	}
	x.op = uint64(op)
	x.wc = s.pickWidth()
	if op.Atomic() {
		x.wc = uint64(specs.ShmemW32)
	}
	// The mask.
	full := verify.Mask(s.lanes)
	switch m := s.r.IntN(20); {
	case phase == shmPhFill || m < 11:
		x.active = full
	case m < 16:
		x.active = s.r.Uint64() & full
	case m < 19:
		x.active = 1 << s.r.IntN(s.lanes)
	default:
		x.active = 0
	}
	// The addresses.
	x.pattern = s.pickPattern(phase)
	s.addresses(x)
	// The data: small values in the atomics phase, so that cas compares
	// equal and min/max and signed values meet.
	small := phase == shmPhAtomics || s.r.IntN(4) == 0
	for i := 0; i < s.lanes; i++ {
		if small {
			v := uint64(s.r.IntN(4))
			if s.r.IntN(4) == 0 {
				v = -v // negative 64-bit, -v as 32-bit too
			}
			x.data[i] = [2]uint64{v, s.r.Uint64()}
			x.cmp[i] = uint32(s.r.IntN(4))
		} else {
			x.data[i] = [2]uint64{s.r.Uint64(), s.r.Uint64()}
			x.cmp[i] = s.r.Uint32()
		}
	}
	if kind == 9 {
		s.refuse(x)
		return
	}
	if s.readsUnwritten(x) {
		// Write it first: the same addresses as a store.
		s.converted++
		x.op = uint64(specs.ShmemStore)
	}
}

// pickWidth is a supported width code.
func (s *shmStim) pickWidth() uint64 {
	for {
		c := uint64(s.r.IntN(3))
		if s.widthsOK[c] {
			return c
		}
	}
}

func (s *shmStim) pickPattern(phase int) int {
	switch phase {
	case shmPhConflictFree:
		return shmPatConflictFree
	case shmPhBroadcast:
		return shmPatBroadcast
	case shmPhOneBank:
		return shmPatOneBank
	case shmPhStrided:
		return shmPatPow2Stride + s.r.IntN(2)
	case shmPhFill:
		return shmPatSweep
	}
	return s.r.IntN(shmPatSweep)
}

// addresses fills x.addr for its pattern, inside the working region,
// aligned to the access width.
func (s *shmStim) addresses(x *shmInstr) {
	n := bytesOf(x.wc)
	lo, size := s.regionLo, s.regionSize
	slots := size / n
	at := func(slot int) int { return lo + ((slot%slots)+slots)%slots*n }
	base := s.r.IntN(slots)
	switch x.pattern {
	case shmPatConflictFree:
		perm := s.r.Perm(s.lanes)
		for i := 0; i < s.lanes; i++ {
			x.addr[i] = at(base + perm[i])
		}
		if s.r.IntN(2) == 0 {
			for i := 0; i < s.lanes; i++ {
				x.addr[i] = at(base + i)
			}
		}
	case shmPatBroadcast:
		var hot [3]int
		for k := range hot {
			hot[k] = at(base + s.r.IntN(4))
		}
		for i := 0; i < s.lanes; i++ {
			x.addr[i] = hot[s.r.IntN(1+s.r.IntN(3))]
			// Two 32-bit lanes in halves of one 8-byte bank word.
			if n == 4 && s.u.BankBytes == 8 && s.r.IntN(3) == 0 {
				x.addr[i] ^= 4
			}
		}
	case shmPatOneBank:
		b := s.r.IntN(s.banks)
		var words []int
		for _, w := range s.regionBanks[b] {
			if (w*s.u.BankBytes)%n == 0 {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			x.pattern = shmPatPow2Stride
			s.addresses(x)
			return
		}
		words = words[:min(len(words), 1+s.r.IntN(2*s.lanes))]
		for i := 0; i < s.lanes; i++ {
			a := words[s.r.IntN(len(words))] * s.u.BankBytes
			if n == 4 && s.u.BankBytes == 8 && s.r.IntN(2) == 0 {
				a += 4
			}
			x.addr[i] = a
		}
	case shmPatPow2Stride, shmPatOddStride:
		strides := []int{1, 2, 4, 8, 16, 32, 64}
		if x.pattern == shmPatOddStride {
			strides = []int{3, 5, 7, 9, 17, 31, 33}
		}
		st := strides[s.r.IntN(len(strides))]
		for i := 0; i < s.lanes; i++ {
			x.addr[i] = at(base + i*st)
		}
	case shmPatSweep:
		s.sweep = (s.sweep + s.lanes) % slots
		for i := 0; i < s.lanes; i++ {
			x.addr[i] = at(s.sweep + i)
		}
	default:
		for i := 0; i < s.lanes; i++ {
			x.addr[i] = at(s.r.IntN(slots))
		}
	}
}

// refuse turns x into an instruction the unit must refuse, for a reason
// the spec allows.
func (s *shmStim) refuse(x *shmInstr) {
	var reasons []int
	reasons = append(reasons, shmRefBadOp, shmRefAtomicWidth, shmRefWidth3, shmRefMisaligned)
	if len(s.missingAtomic) > 0 {
		reasons = append(reasons, shmRefAtomic)
	}
	if !s.widthsOK[0] || !s.widthsOK[1] || !s.widthsOK[2] {
		reasons = append(reasons, shmRefWidth)
	}
	if s.bytes < 1<<s.addrBits {
		reasons = append(reasons, shmRefRange)
	}
	why := reasons[s.r.IntN(len(reasons))]
	x.refusal = why
	lane := s.r.IntN(s.lanes)
	switch why {
	case shmRefBadOp:
		x.op = uint64(12 + s.r.IntN(4))
	case shmRefAtomic:
		x.op, x.wc = uint64(s.missingAtomic[s.r.IntN(len(s.missingAtomic))]), uint64(specs.ShmemW32)
	case shmRefAtomicWidth:
		x.op, x.wc = uint64(specs.ShmemAtomics[s.r.IntN(len(specs.ShmemAtomics))]), uint64(1+s.r.IntN(2))
	case shmRefWidth3:
		x.wc = 3
	case shmRefWidth:
		for {
			c := uint64(s.r.IntN(3))
			if !s.widthsOK[c] {
				x.wc = c
				break
			}
		}
		if specs.ShmemOp(x.op).Atomic() {
			x.op = uint64(specs.ShmemLoad)
		}
	case shmRefMisaligned:
		if x.wc == 3 || !s.widthsOK[x.wc] {
			x.wc = s.pickWidth()
		}
		if specs.ShmemOp(x.op).Atomic() && x.wc != 0 {
			x.op = uint64(specs.ShmemStore)
		}
		n := bytesOf(x.wc)
		x.active |= 1 << lane
		x.addr[lane] = x.addr[lane]/n*n + 1 + s.r.IntN(n-1)
	case shmRefRange:
		if x.wc == 3 || !s.widthsOK[x.wc] {
			x.wc = s.pickWidth()
		}
		if specs.ShmemOp(x.op).Atomic() && x.wc != 0 {
			x.op = uint64(specs.ShmemStore)
		}
		n := bytesOf(x.wc)
		x.active |= 1 << lane
		x.addr[lane] = s.bytes + s.r.IntN((1<<s.addrBits-s.bytes)/n)*n
	}
}

func (s *shmStim) Observe(in, out [][]uint64) {
	rst := in[s.rst][0]&1 == 1
	ready := out[s.ready][0]&1 == 1
	rspValid := out[s.rspValid][0]&1 == 1
	rspReady := in[s.rspReady][0]&1 == 1
	if rspReady {
		s.lowRun = 0
	} else {
		s.lowCycles++
		s.lowRun++
		s.maxLowRun = max(s.maxLowRun, s.lowRun)
	}
	if rst {
		s.resets++
		if s.busy {
			s.resetsBusy++
		}
		// The reset drops what is in flight, and the stream no longer
		// counts on what the storage holds.
		clear(s.written)
		s.pending, s.busy = false, false
		return
	}
	if rspValid && rspReady {
		s.responses++
		if out[s.rspError][0]&1 == 1 {
			s.errors++
		}
		s.maxPasses = max(s.maxPasses, int(out[s.rspPasses][0]))
	}
	valid := in[s.valid][0]&1 == 1
	switch {
	case valid && ready && s.pending:
		s.accepted(&s.cur)
		s.pending = false
	case valid:
		s.stalled++
	}
	s.busy = !ready || rspValid
}

// accepted records an accepted instruction: coverage, and the bytes a
// store writes.
func (s *shmStim) accepted(x *shmInstr) {
	if x.refusal >= 0 {
		s.refusals[x.refusal]++
		return
	}
	s.ops[x.op]++
	s.widths[x.wc]++
	s.patterns[x.pattern]++
	switch {
	case x.active == verify.Mask(s.lanes):
		s.fullMasks++
	case x.active == 0:
		s.nil0++
	case x.active&(x.active-1) == 0:
		s.single++
	default:
		s.partial++
	}
	if specs.ShmemOp(x.op) != specs.ShmemStore {
		return
	}
	n := bytesOf(x.wc)
	for i := 0; i < s.lanes; i++ {
		if x.active>>i&1 == 1 {
			for g := x.addr[i] / 4; g < (x.addr[i]+n)/4; g++ {
				s.written[g] = true
			}
		}
	}
}

func (s *shmStim) Coverage() string {
	var ops, pats, refs, phases []string
	for o := specs.ShmemOp(0); o < specs.NumShmemOps; o++ {
		ops = append(ops, fmt.Sprintf("%v %d", o, s.ops[o]))
	}
	for p, n := range s.patterns {
		pats = append(pats, fmt.Sprintf("%s %d", shmPatternNames[p], n))
	}
	for r, n := range s.refusals {
		refs = append(refs, fmt.Sprintf("%s %d", shmRefusalNames[r], n))
	}
	for i, n := range shmPhaseNames {
		if s.ph.Seen(i) {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("instructions: %s; widths 32/64/128: %d/%d/%d; patterns: %s; masks full %d, partial %d, one lane %d, empty %d; "+
		"refused: %s; %d reads made stores first, %d offers stalled, %d responses (%d errors, most passes %d), "+
		"rsp_ready_i low %d cycles (longest %d), %d reset cycles (%d in flight); phases: %s",
		strings.Join(ops, ", "), s.widths[0], s.widths[1], s.widths[2], strings.Join(pats, ", "),
		s.fullMasks, s.partial, s.single, s.nil0, strings.Join(refs, ", "), s.converted, s.stalled,
		s.responses, s.errors, s.maxPasses, s.lowCycles, s.maxLowRun, s.resets, s.resetsBusy, strings.Join(phases, ", "))
}
