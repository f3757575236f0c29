package model

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/lsugen/lsugen/specs"
)

// # Shared memory (issue 29)
//
// Let L = lanes, A = clog2(bytes) (byte-address bits), MW = the widest
// supported width, PB = bits.Len(L * max(1, MW / (8*bank_bytes))). Lane i
// occupies bits i*n .. i*n+n-1 of an n-bit-per-lane vector.
//
//	inputs (in order)                          outputs (in order)
//	rst[1] req_valid_i[1] req_op_i[4]          req_ready_o[1] rsp_valid_o[1]
//	req_width_i[2] req_active_i[L]             rsp_data_o[L*MW] rsp_active_o[L]
//	req_addr_i[L*A] req_data_i[L*MW]           rsp_error_o[1] rsp_passes_o[PB]
//	req_cmp_i[L*32] rsp_ready_i[1] hash_cfg_*
//
// The hash_cfg_* inputs are those of a configurable bank hash, named as
// the bank arbiter names them (every input of the hash's model but addr_i,
// prefixed hash_). The model is written from the protocol alone:
//
//   - Storage is a flat array of bytes. An accepted instruction is executed
//     whole when it is accepted, in acceptance order, which is the order
//     the unit's passes read and write the banks in (the unit forwards its
//     own writes): loads read W bits at each active lane's address, stores
//     write lane by lane in increasing order (so the highest lane keeps a
//     byte several lanes store), atomics (32-bit) read, return and write
//     lane by lane in increasing order.
//   - Refused: op > 11, an atomic not supported or not 32-bit, width code
//     3 or a width not supported, an active lane misaligned or with
//     a + W/8 > bytes. One pass, error, no data, no effect.
//   - Passes: the cost model (phases of max(1, floor(N/k)) lanes, the
//     largest count of distinct words, or of lanes for atomics, in one
//     bank of a phase; empty phases skipped; 1 for no active lane), with
//     the banks of the accept cycle's configuration (a configuration must
//     be held while instructions are in the unit).
//   - Timing: CUR holds one instruction; its passes run in consecutive
//     cycles from the cycle after acceptance, except that no pass is made
//     while Q - pop + S2 > 1 (Q responses queued at the cycle's start, pop
//     = Q > 0 && rsp_ready_i, S2 = the previous cycle made a last pass).
//     req_ready_o = !rst && (CUR empty || CUR makes its last pass). With
//     clock_fo4 (the pipelined front end) NEXT holds a second instruction:
//     req_ready_o = !rst && !(CUR and NEXT both full); an instruction
//     taken while CUR is empty (or makes its last pass) is CUR the next
//     cycle, else NEXT, which becomes CUR after CUR's last pass. The
//     response of a last pass in cycle c enters the two-entry FIFO at the
//     end of c+1.
//   - rst: outputs still show the queue head; at the end of the cycle
//     everything but the storage is cleared. Writes of a pass made in
//     cycle c land at the end of c+1 unless rst is 1 in c+1, so the
//     instructions in flight (the one whose last pass was in the previous
//     cycle, and CUR) are undone: exactly when none of their passes had
//     landed, and otherwise the bytes they write become unknown (which
//     passes serve which lanes is the unit's choice), as they are before
//     the first write. Known reports which bytes hold values the model
//     knows; a stimulus reads only those.

// SharedMemoryModel is the model of a shared_memory unit; ForSharedMemory
// returns it as a Sequential.
type SharedMemoryModel struct {
	lanes, addrBits, maxW, passBits, bankBytes, nBanks int
	bytes, words                                       int
	widths                                             [3]bool // by width code
	atomics                                            [specs.NumShmemOps]bool
	hash                                               *arbHash // nil: bank = word mod nBanks
	ports                                              []Port

	mem   []byte
	known []bool

	// Bank of every word under the configuration cfgSnap (all of them for
	// a constant hash); tableOK is false until built.
	bankOf   []uint8
	tableOK  bool
	cfgSnap  [][]uint64
	cfgSame  int // accepts in a row with an unchanged configuration
	wordSeen []uint32
	bankCnt  []uint32
	bankGen  []uint32
	gen      uint32

	front     bool // clock_fo4: NEXT exists
	slots     [5]shmSlot
	cur, s2   int // slot indices, -1 when empty
	next      int // with front: the instruction behind CUR, -1 when none
	curDone   int // passes CUR made
	curPassed bool
	q         [2]int
	qn        int

	lane shmLanes // scratch of one instruction
}

// shmSlot is one instruction from acceptance to its response.
type shmSlot struct {
	data   []uint64 // rsp_data_o
	active uint64
	err    bool
	passes int
	undo   []shmUndo // writes in order, for a reset
}

// shmUndo is the old contents of n bytes at addr before one write.
type shmUndo struct {
	addr  int
	n     int
	old   [16]byte
	known [16]bool
}

type shmLanes struct {
	addr [specs.MaxShmemLanes]int
}

// ForSharedMemory returns the model of a shared memory unit.
func ForSharedMemory(u *specs.SharedMemory) (Sequential, error) {
	m, err := NewSharedMemory(u)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// NewSharedMemory returns the model with its concrete type, for a
// stimulus that asks which bytes are Known. It refuses sizes outside the
// spec's limits and a hash that ForHash refuses.
func NewSharedMemory(u *specs.SharedMemory) (*SharedMemoryModel, error) {
	if u.Lanes < 1 || u.Lanes > specs.MaxShmemLanes {
		return nil, fmt.Errorf("lanes = %d, want 1..%d", u.Lanes, specs.MaxShmemLanes)
	}
	if u.BankBytes != 4 && u.BankBytes != 8 {
		return nil, fmt.Errorf("bank_bytes = %d, want 4 or 8", u.BankBytes)
	}
	if u.Bytes < specs.MinShmemBytes || u.Bytes > specs.MaxShmemBytes || u.Bytes%16 != 0 {
		return nil, fmt.Errorf("bytes = %d, want a multiple of 16 in %d..%d", u.Bytes, specs.MinShmemBytes, specs.MaxShmemBytes)
	}
	if len(u.Widths) == 0 {
		return nil, fmt.Errorf("no access width")
	}
	m := &SharedMemoryModel{lanes: u.Lanes, bankBytes: u.BankBytes, bytes: u.Bytes, words: u.Bytes / u.BankBytes, cur: -1, s2: -1, next: -1, front: u.Clock.ClockFO4 > 0}
	m.addrBits = clog2(u.Bytes)
	for _, w := range u.Widths {
		c, ok := specs.ShmemWidthOf(w)
		if !ok {
			return nil, fmt.Errorf("width %d, want 32, 64 or 128", w)
		}
		m.widths[c] = true
		m.maxW = max(m.maxW, w)
	}
	for _, a := range u.Atomics {
		if !a.Atomic() {
			return nil, fmt.Errorf("atomic %v is not an atomic operation", a)
		}
		m.atomics[a] = true
	}
	kmax := max(1, m.maxW/(8*u.BankBytes))
	for n := u.Lanes * kmax; n > 0; n >>= 1 {
		m.passBits++
	}
	L := u.Lanes
	m.ports = []Port{
		{Name: "rst", Width: 1}, {Name: "req_valid_i", Width: 1}, {Name: "req_op_i", Width: 4},
		{Name: "req_width_i", Width: 2}, {Name: "req_active_i", Width: L},
		{Name: "req_addr_i", Width: L * m.addrBits}, {Name: "req_data_i", Width: L * m.maxW},
		{Name: "req_cmp_i", Width: L * 32}, {Name: "rsp_ready_i", Width: 1},
	}
	if u.Hash != nil {
		h, cfg, err := newArbHash(u.Hash, 64, "hash_")
		if err != nil {
			return nil, err
		}
		hu := u.Hash.Hash()
		m.nBanks = 1 << h.bankBits
		if hu.Function == specs.Mod {
			m.nBanks = hu.Banks
		}
		h.cfgFirst = len(m.ports)
		m.hash = h
		m.ports = append(m.ports, cfg...)
		m.cfgSnap = make([][]uint64, len(cfg))
		for k, p := range cfg {
			m.cfgSnap[k] = make([]uint64, (p.Width+63)/64)
		}
	} else {
		m.nBanks = u.Banks
	}
	if m.nBanks < 2 || m.nBanks > specs.MaxShmemBanks {
		return nil, fmt.Errorf("%d banks, want 2..%d", m.nBanks, specs.MaxShmemBanks)
	}
	m.ports = append(m.ports,
		Port{Name: "req_ready_o", Width: 1, Output: true}, Port{Name: "rsp_valid_o", Width: 1, Output: true},
		Port{Name: "rsp_data_o", Width: L * m.maxW, Output: true}, Port{Name: "rsp_active_o", Width: L, Output: true},
		Port{Name: "rsp_error_o", Width: 1, Output: true}, Port{Name: "rsp_passes_o", Width: m.passBits, Output: true})
	m.mem = make([]byte, u.Bytes)
	m.known = make([]bool, u.Bytes)
	m.bankOf = make([]uint8, m.words)
	m.wordSeen = make([]uint32, m.words)
	m.bankCnt = make([]uint32, m.nBanks)
	m.bankGen = make([]uint32, m.nBanks)
	for i := range m.slots {
		m.slots[i].data = make([]uint64, (L*m.maxW+63)/64)
		m.slots[i].undo = make([]shmUndo, 0, L)
	}
	if m.hash == nil || m.hash.nCfg == 0 {
		m.buildTable(nil)
	}
	return m, nil
}

func (m *SharedMemoryModel) Ports() []Port { return m.ports }

// Reset clears everything but the storage, as a reset cycle does (the
// instructions in flight are dropped as by rst).
func (m *SharedMemoryModel) Reset() {
	m.dropInFlight()
	m.cur, m.s2, m.next, m.qn, m.curDone, m.curPassed = -1, -1, -1, 0, 0, false
}

// Known reports whether the n bytes at addr all hold values the model
// knows: written by an instruction that completed (or whose writes
// landed), and not since made unknown by a reset in flight.
func (m *SharedMemoryModel) Known(addr, n int) bool {
	if addr < 0 || addr+n > m.bytes {
		return false
	}
	for _, k := range m.known[addr : addr+n] {
		if !k {
			return false
		}
	}
	return true
}

// Bank is the bank of word address w (0 <= w < words): under a
// configurable hash, with the configuration of the last accepted
// instruction that had an active lane (zeros before any).
func (m *SharedMemoryModel) Bank(w int) int {
	switch {
	case m.hash == nil:
		return w % m.nBanks
	case m.tableOK:
		return int(m.bankOf[w])
	}
	in := make([][]uint64, m.hash.cfgFirst+len(m.cfgSnap))
	copy(in[m.hash.cfgFirst:], m.cfgSnap)
	return int(m.hash.eval(uint64(w), in))
}

// NumBanks is the number of banks.
func (m *SharedMemoryModel) NumBanks() int { return m.nBanks }

// buildTable computes the bank of every word with the configuration in
// in (nil: no configuration).
func (m *SharedMemoryModel) buildTable(in [][]uint64) {
	if m.hash == nil {
		for w := range m.bankOf {
			m.bankOf[w] = uint8(w % m.nBanks)
		}
	} else {
		for w := range m.bankOf {
			m.bankOf[w] = uint8(m.hash.eval(uint64(w), in))
		}
	}
	m.tableOK = true
}

// prepareBanks notes the configuration on in and builds the bank table
// once a configuration has been held for a few instructions.
func (m *SharedMemoryModel) prepareBanks(in [][]uint64) {
	if m.hash == nil || m.hash.nCfg == 0 {
		return
	}
	same := true
	for k := range m.cfgSnap {
		if !slices.Equal(m.cfgSnap[k], in[m.hash.cfgFirst+k]) {
			same = false
			copy(m.cfgSnap[k], in[m.hash.cfgFirst+k])
		}
	}
	if !same {
		m.tableOK, m.cfgSame = false, 0
		return
	}
	m.cfgSame++
	// A configuration held for a few instructions is worth a table.
	if !m.tableOK && m.cfgSame >= 4 {
		m.buildTable(in)
	}
}

// bank is the bank of word w under the configuration on in.
func (m *SharedMemoryModel) bank(w int, in [][]uint64) int {
	if m.tableOK {
		return int(m.bankOf[w])
	}
	return int(m.hash.eval(uint64(w), in))
}

// Cycle implements Sequential.
func (m *SharedMemoryModel) Cycle(in, out [][]uint64) {
	rst := in[0][0]&1 == 1
	rspReady := in[8][0]&1 == 1
	Q := m.qn
	pop := Q > 0 && rspReady
	m.writeOutputs(out)
	if rst {
		out[0][0] = 0
		m.Reset()
		return
	}
	s2 := 0
	if m.s2 >= 0 {
		s2 = 1
	}
	passed, last := false, false
	if m.cur >= 0 && Q-b2i(pop)+s2 <= 1 {
		passed, last = true, m.curDone == m.slots[m.cur].passes-1
	}
	ready := m.cur < 0 || last
	if m.front {
		ready = m.cur < 0 || m.next < 0
	}
	out[0][0] = uint64(b2i(ready))
	// The rising edge.
	if pop {
		m.q[0], m.q[1] = m.q[1], -1
		m.qn--
	}
	if m.s2 >= 0 { // its writes land now: commit
		m.slots[m.s2].undo = m.slots[m.s2].undo[:0]
		m.q[m.qn] = m.s2
		m.qn++
		m.s2 = -1
	}
	m.curPassed = passed
	if passed {
		m.curDone++
	}
	if last {
		m.s2, m.cur = m.cur, -1
		if m.next >= 0 {
			m.cur, m.curDone, m.curPassed, m.next = m.next, 0, false, -1
		}
	}
	if ready && in[1][0]&1 == 1 {
		m.accept(in)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *SharedMemoryModel) writeOutputs(out [][]uint64) {
	for k := 1; k < len(out); k++ {
		clear(out[k])
	}
	if m.qn == 0 {
		return
	}
	s := &m.slots[m.q[0]]
	out[1][0] = 1
	copy(out[2], s.data)
	out[3][0] = s.active
	out[4][0] = uint64(b2i(s.err))
	out[5][0] = uint64(s.passes)
}

// dropInFlight undoes CUR, then the instruction whose last pass was the
// previous cycle: exactly when none of their passes had landed, else by
// making the bytes they write unknown.
func (m *SharedMemoryModel) dropInFlight() {
	if m.next >= 0 {
		m.undo(m.next, false)
	}
	if m.cur >= 0 {
		m.undo(m.cur, m.curDone-b2i(m.curPassed) > 0)
	}
	if m.s2 >= 0 {
		m.undo(m.s2, m.slots[m.s2].passes > 1)
	}
}

func (m *SharedMemoryModel) undo(slot int, partial bool) {
	u := m.slots[slot].undo
	for i := len(u) - 1; i >= 0; i-- {
		e := &u[i]
		if partial {
			clear(m.known[e.addr : e.addr+e.n])
		} else {
			copy(m.mem[e.addr:e.addr+e.n], e.old[:e.n])
			copy(m.known[e.addr:e.addr+e.n], e.known[:e.n])
		}
	}
	m.slots[slot].undo = u[:0]
}

// freeSlot is a slot that holds no instruction in flight or queued.
func (m *SharedMemoryModel) freeSlot() int {
	for i := range m.slots {
		if i != m.cur && i != m.s2 && i != m.next && (m.qn < 1 || i != m.q[0]) && (m.qn < 2 || i != m.q[1]) {
			return i
		}
	}
	panic("model: shared memory has no free response slot")
}

// field is bits lo .. lo+n-1 (n <= 64) of v.
func field(v []uint64, lo, n int) uint64 {
	w, b := lo>>6, uint(lo&63)
	x := v[w] >> b
	if int(b)+n > 64 && w+1 < len(v) {
		x |= v[w+1] << (64 - b)
	}
	return x & lowMask(n)
}

// accept executes the instruction on the inputs and makes it CUR, or
// NEXT when CUR holds one.
func (m *SharedMemoryModel) accept(in [][]uint64) {
	slot := m.freeSlot()
	s := &m.slots[slot]
	clear(s.data)
	s.undo = s.undo[:0]
	s.err = false
	if m.cur >= 0 {
		m.next = slot
	} else {
		m.cur, m.curDone, m.curPassed = slot, 0, false
	}
	active := in[4][0] & lowMask(m.lanes)
	s.active = active
	op := specs.ShmemOp(in[2][0] & 15)
	wc := specs.ShmemWidth(in[3][0] & 3)
	refuse := func() {
		clear(s.data)
		s.err, s.passes = true, 1
	}
	if op >= specs.NumShmemOps || op.Atomic() && (!m.atomics[op] || wc != specs.ShmemW32) || wc > specs.ShmemW128 || !m.widths[wc] {
		refuse()
		return
	}
	wbytes := wc.Bits() / 8
	for i := 0; i < m.lanes; i++ {
		if active>>i&1 == 0 {
			continue
		}
		a := int(field(in[5], i*m.addrBits, m.addrBits))
		if a%wbytes != 0 || a+wbytes > m.bytes {
			refuse()
			return
		}
		m.lane.addr[i] = a
	}
	if active == 0 {
		s.passes = 1
		return
	}
	m.prepareBanks(in)
	s.passes = m.passes(in, active, wbytes, op.Atomic())
	switch {
	case op == specs.ShmemLoad:
		for i := 0; i < m.lanes; i++ {
			if active>>i&1 == 1 {
				m.load(s.data, i, m.lane.addr[i], wbytes)
			}
		}
	case op == specs.ShmemStore:
		for i := 0; i < m.lanes; i++ {
			if active>>i&1 == 1 {
				m.store(s, in[6], i, m.lane.addr[i], wbytes)
			}
		}
	default:
		for i := 0; i < m.lanes; i++ {
			if active>>i&1 == 1 {
				m.atomic(s, op, in, i, m.lane.addr[i])
			}
		}
	}
}

// passes is the cost model on the accepted lanes.
func (m *SharedMemoryModel) passes(in [][]uint64, active uint64, wbytes int, atomic bool) int {
	k := max(1, wbytes/m.bankBytes)
	g := max(1, m.nBanks/k)
	total := 0
	for p := 0; p < m.lanes; p += g {
		ph := active >> p & lowMask(min(g, m.lanes-p))
		if ph == 0 {
			continue
		}
		m.gen++
		if m.gen == 0 { // wrapped: restart the stamps
			clear(m.wordSeen)
			clear(m.bankGen)
			m.gen = 1
		}
		best := uint32(0)
		for j := 0; ph != 0; j, ph = j+1, ph>>1 {
			if ph&1 == 0 {
				continue
			}
			w0 := m.lane.addr[p+j] / m.bankBytes
			for t := 0; t < k; t++ {
				w := w0 + t
				if !atomic {
					if m.wordSeen[w] == m.gen {
						continue
					}
					m.wordSeen[w] = m.gen
				}
				b := m.bank(w, in)
				if m.bankGen[b] != m.gen {
					m.bankGen[b], m.bankCnt[b] = m.gen, 0
				}
				m.bankCnt[b]++
				best = max(best, m.bankCnt[b])
			}
		}
		total += int(best)
	}
	return total
}

// load puts the n bytes at a into lane i's field of data.
func (m *SharedMemoryModel) load(data []uint64, i, a, n int) {
	lo := i * m.maxW
	switch n {
	case 4:
		data[lo>>6] |= uint64(binary.LittleEndian.Uint32(m.mem[a:])) << uint(lo&63)
	default:
		for t := 0; t < n/8; t++ {
			data[lo>>6+t] = binary.LittleEndian.Uint64(m.mem[a+8*t:])
		}
	}
}

// write stores the low n bytes of x (n <= 16, given as two words) at a,
// logging the old contents in s.
func (m *SharedMemoryModel) write(s *shmSlot, a, n int, lo, hi uint64) {
	e := shmUndo{addr: a, n: n}
	copy(e.old[:n], m.mem[a:a+n])
	copy(e.known[:n], m.known[a:a+n])
	s.undo = append(s.undo, e)
	switch n {
	case 4:
		binary.LittleEndian.PutUint32(m.mem[a:], uint32(lo))
	case 8:
		binary.LittleEndian.PutUint64(m.mem[a:], lo)
	default:
		binary.LittleEndian.PutUint64(m.mem[a:], lo)
		binary.LittleEndian.PutUint64(m.mem[a+8:], hi)
	}
	for t := a; t < a+n; t++ {
		m.known[t] = true
	}
}

func (m *SharedMemoryModel) store(s *shmSlot, data []uint64, i, a, n int) {
	lo := i * m.maxW
	var x0, x1 uint64
	if n == 4 {
		x0 = field(data, lo, 32)
	} else {
		x0 = data[lo>>6]
		if n == 16 {
			x1 = data[lo>>6+1]
		}
	}
	m.write(s, a, n, x0, x1)
}

// atomic applies lane i's 32-bit atomic at a and returns the old value in
// its field of the response.
func (m *SharedMemoryModel) atomic(s *shmSlot, op specs.ShmemOp, in [][]uint64, i, a int) {
	old := binary.LittleEndian.Uint32(m.mem[a:])
	x := uint32(field(in[6], i*m.maxW, 32))
	var nw uint32
	switch op {
	case specs.ShmemAdd:
		nw = old + x
	case specs.ShmemSMin:
		nw = uint32(min(int32(old), int32(x)))
	case specs.ShmemSMax:
		nw = uint32(max(int32(old), int32(x)))
	case specs.ShmemUMin:
		nw = min(old, x)
	case specs.ShmemUMax:
		nw = max(old, x)
	case specs.ShmemAnd:
		nw = old & x
	case specs.ShmemOr:
		nw = old | x
	case specs.ShmemXor:
		nw = old ^ x
	case specs.ShmemExch:
		nw = x
	case specs.ShmemCAS:
		nw = old
		if old == uint32(field(in[7], i*32, 32)) {
			nw = x
		}
	}
	m.write(s, a, 4, uint64(nw), 0)
	lo := i * m.maxW
	s.data[lo>>6] |= uint64(old) << uint(lo&63)
}
