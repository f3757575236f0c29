package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// # Bank arbiters (002_*, 001_*)
//
// Let L = lanes, A = addr_bits, B = bank bits (the bank hash's bank_bits,
// or the bank_bits argument), K = lock bits (the lock hash's bank_bits),
// D = clog2(L+1), the bits that hold 0..L. addr_i carries one A-bit word
// address per lane: lane k occupies bits k*A .. k*A+A-1, lane 0 in the
// least significant bits (a lane may straddle a 64-bit word boundary).
// Bit k of active_i, grant_o and the other lane masks belongs to lane k;
// lane k's bank occupies bits k*B .. k*B+B-1 of bank_o, its lock index
// bits k*K .. k*K+K-1 of lock_o.
//
//	unit          serialize  inputs (in order)                outputs (in order)
//	bank_arbiter  false      addr_i[L*A] active_i[L]          bank_o[L*B] degree_o[D] grant_o[L]
//	                         hash_cfg_*  lock_cfg_*           lock_o[L*K] lock_degree_o[D]
//	                                                          position_degree_o[D]
//	bank_arbiter  true       rst[1] valid_i[1] addr_i[L*A]    ready_o[1] grant_valid_o[1] grant_o[L]
//	                         active_i[L] hash_cfg_*           last_o[1] bank_o[L*B] degree_o[D]
//	                         lock_cfg_*                       lock_o[L*K] lock_degree_o[D]
//	                                                          position_degree_o[D]
//
// The lock outputs exist only with a lock hash. The configuration ports
// of a configurable hash are every input of its model (ForHash) other
// than addr_i, in the model's order, renamed with the prefix hash_ (the
// bank hash: cfg_k_i becomes hash_cfg_k_i) or lock_ (the lock hash:
// lock_cfg_k_i); one set serves every lane.
//
// Functions, with addr(i) lane i's address and "active" a lane whose bit
// of the active mask is 1:
//
//   - bank(i) = the bank hash's bank_o on the low addr_bits (of the hash)
//     bits of addr(i) and the hash_ configuration; without a bank hash,
//     addr(i) mod 2^B. lock(i) = the lock hash's bank_o, likewise with the
//     lock_ configuration. bank_o and lock_o hold every lane's, active or
//     not. Equal addresses have equal banks and equal locks.
//   - degree_o = the largest, over banks, number of distinct addresses
//     among the active lanes of the bank (broadcast = true), or of active
//     lanes in the bank (broadcast = false); 0 when no lane is active.
//   - grant_o: lane i is granted when it is active and, with k the lowest
//     active lane of bank(i), addr(i) == addr(k) (broadcast = true) or
//     i == k (broadcast = false). Every bank with an active lane grants
//     one address (one lane), so the lanes not granted have degree
//     degree_o - 1.
//   - lock_degree_o (002 section II.A: the lock conflict degree) = the
//     largest, over lock indices, number of distinct addresses among the
//     active lanes on that lock, whatever broadcast; position_degree_o
//     (the position conflict degree) = the largest, over addresses, number
//     of active lanes on that address. Both are 0 when no lane is active.
//
// The serializing arbiter (serialize = true) is clocked; rst is a
// synchronous, active-high input. Its state is busy, rem (the lanes of the
// held warp not yet granted) and the held warp's addresses and banks; the
// reset state has busy = 0 and rem = 0. In each cycle:
//
//   - grant_valid_o = busy; grant_o = the grant function above on the held
//     addresses and banks with rem as the active mask, 0 when not busy;
//     last_o = busy and (rem & ~grant_o) == 0; ready_o = !busy or last_o.
//   - bank_o, degree_o and the lock outputs are the combinational
//     functions above of this cycle's addr_i, active_i and configuration:
//     the warp being offered, accepted or not.
//   - Next state: with rst, the reset state. Else, when valid_i and
//     ready_o, the warp is accepted: busy = 1, rem = active_i, and the
//     addresses and the banks are held, the banks computed with the
//     configuration inputs of the accept cycle (the hardware registers
//     them then; a later configuration change does not move a held warp's
//     lanes between banks). Else, when busy, rem &= ~grant_o and busy =
//     !last_o.
//
// So an accepted warp of degree d has exactly d grant cycles (one with
// grant_o = 0 and last_o = 1 when no lane is active), the last of which
// can accept the next warp, and the union of its grants is its active
// mask.
//
// ForBankArbiter (serialize = false) and ForSerialBankArbiter (serialize =
// true) refuse lanes outside 2..specs.MaxArbiterLanes, addr_bits outside
// 1..64, bank bits outside 1..16 (or different from the bank hash's
// bank_bits), a hash reference that is not resolved to a hash unit, a
// hash that reads more address bits than the arbiter has, a hash ForHash
// refuses, and the other constructor's serialize setting.

// The lane masks are uint64 words: an arbiter has at most 64 lanes.
const _ = uint(64 - specs.MaxArbiterLanes)

// arbMaxHashPorts bounds a referenced hash model's inputs and outputs
// (bitvector_xor has the most inputs, 4; rap the most outputs, 2).
const arbMaxHashPorts = 8

// arbLaneVals holds one value per lane, on the stack.
type arbLaneVals = [specs.MaxArbiterLanes]uint64

// arbHash is a referenced hash as an arbiter evaluates it: its model, the
// address bits it reads, where its configuration ports sit among the
// arbiter's inputs, and where its bank_o sits among its outputs.
type arbHash struct {
	m        Model
	addrBits int
	cfgFirst int // index of its first configuration port among the arbiter's inputs
	nCfg     int // configuration ports
	nOut     int // outputs of the hash model
	bankOut  int // index of bank_o among them
	bankBits int // width of bank_o
}

// newArbHash checks a referenced hash against the arbiter and builds its
// model; prefix names its configuration ports among the arbiter's.
func newArbHash(r *specs.UnitRef, arbAddrBits int, prefix string) (*arbHash, []Port, error) {
	h := r.Hash()
	if h == nil {
		return nil, nil, fmt.Errorf("%s = hash.%s is not resolved to a hash unit", r.Attr, r.Name)
	}
	if h.AddrBits > arbAddrBits {
		return nil, nil, fmt.Errorf("%s %q reads %d address bits, more than addr_bits = %d", r.Attr, h.Name, h.AddrBits, arbAddrBits)
	}
	m, err := ForHash(h)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Attr, err)
	}
	ah := &arbHash{m: m, addrBits: h.AddrBits, bankOut: -1}
	var cfg []Port
	nIn := 0
	for _, p := range m.Ports() {
		switch {
		case p.Output:
			if p.Width > 64 {
				return nil, nil, fmt.Errorf("%s %q: output %s is %d bits wide, more than 64", r.Attr, h.Name, p.Name, p.Width)
			}
			if p.Name == "bank_o" {
				ah.bankOut, ah.bankBits = ah.nOut, p.Width
			}
			ah.nOut++
		case nIn == 0:
			if p.Name != "addr_i" || p.Width != h.AddrBits {
				return nil, nil, fmt.Errorf("%s %q: first input %s[%d], want addr_i[%d]", r.Attr, h.Name, p.Name, p.Width, h.AddrBits)
			}
			nIn++
		default:
			cfg = append(cfg, Port{Name: prefix + p.Name, Width: p.Width})
			nIn++
		}
	}
	ah.nCfg = len(cfg)
	if ah.bankOut < 0 {
		return nil, nil, fmt.Errorf("%s %q has no bank_o", r.Attr, h.Name)
	}
	if nIn > arbMaxHashPorts || ah.nOut > arbMaxHashPorts {
		return nil, nil, fmt.Errorf("%s %q has %d inputs and %d outputs, more than %d", r.Attr, h.Name, nIn, ah.nOut, arbMaxHashPorts)
	}
	return ah, cfg, nil
}

// eval returns the hash's bank_o for addr, with its configuration ports
// read from the arbiter's inputs in. The scratch port values live on the
// stack; evalHashModel calls the model through its concrete type so that
// they do not escape.
func (h *arbHash) eval(addr uint64, in [][]uint64) uint64 {
	var aw [1]uint64
	var ow [arbMaxHashPorts]uint64
	var hin, hout [arbMaxHashPorts][]uint64
	aw[0] = addr & lowMask(h.addrBits)
	hin[0] = aw[:]
	for k := range h.nCfg {
		hin[1+k] = in[h.cfgFirst+k]
	}
	for k := range h.nOut {
		hout[k] = ow[k : k+1]
	}
	evalHashModel(h.m, hin[:1+h.nCfg], hout[:h.nOut])
	return ow[h.bankOut]
}

// evalHashModel evaluates a hash model returned by ForHash. A call through
// the Model interface makes its port values escape to the heap; a call of
// the concrete method does not, which keeps the arbiters' Eval free of
// allocations.
func evalHashModel(m Model, in, out [][]uint64) {
	switch h := m.(type) {
	case *bitvectorPerm:
		h.Eval(in, out)
	case *bitvectorXor:
		h.Eval(in, out)
	case *bitwisePerm:
		h.Eval(in, out)
	case *bitwiseXorCfg:
		h.Eval(in, out)
	case *xorOfBits:
		h.Eval(in, out)
	case *fixedXor:
		h.Eval(in, out)
	case *add:
		h.Eval(in, out)
	case *rap:
		h.Eval(in, out)
	default: // a hash model added later: correct, but allocates
		evalHashCopy(m, in, out)
	}
}

// evalHashCopy evaluates m through the interface on heap copies of the
// port values, so that the caller's stack scratch does not escape.
func evalHashCopy(m Model, in, out [][]uint64) {
	hin, hout := make([][]uint64, len(in)), make([][]uint64, len(out))
	for k, v := range in {
		hin[k] = append([]uint64(nil), v...)
	}
	for k, v := range out {
		hout[k] = make([]uint64, len(v))
	}
	m.Eval(hin, hout)
	for k, v := range hout {
		copy(out[k], v)
	}
}

// arbiter is what the combinational and the serializing arbiters share:
// the sizes, the hashes, and the functions on one warp.
type arbiter struct {
	lanes, addrBits, bankBits, lockBits, degBits int
	broadcast                                    bool
	bankHash                                     *arbHash // nil: bank = address mod 2^bankBits
	lockHash                                     *arbHash // nil: no lock outputs
	ports                                        []Port
}

// arbWarp is one warp's lanes: addresses, banks and lock indices.
type arbWarp struct {
	addr, bank, lock arbLaneVals
}

// newArbiter checks the spec and builds the shared part; dataFirst is the
// index of addr_i among the inputs (the configuration ports follow
// active_i).
func newArbiter(a *specs.BankArbiter, dataFirst int) (*arbiter, []Port, error) {
	if a.Lanes < 2 || a.Lanes > specs.MaxArbiterLanes {
		return nil, nil, fmt.Errorf("lanes = %d, want 2..%d", a.Lanes, specs.MaxArbiterLanes)
	}
	if a.AddrBits < 1 || a.AddrBits > 64 {
		return nil, nil, fmt.Errorf("addr_bits = %d, want 1..64", a.AddrBits)
	}
	if a.BankBits < 1 || a.BankBits > 16 {
		return nil, nil, fmt.Errorf("bank bits = %d, want 1..16", a.BankBits)
	}
	ar := &arbiter{lanes: a.Lanes, addrBits: a.AddrBits, bankBits: a.BankBits,
		degBits: clog2(a.Lanes + 1), broadcast: a.Broadcast}
	cfgFirst := dataFirst + 2
	var cfg []Port
	if a.Hash != nil {
		h, ports, err := newArbHash(a.Hash, a.AddrBits, "hash_")
		if err != nil {
			return nil, nil, err
		}
		if h.bankBits != a.BankBits {
			return nil, nil, fmt.Errorf("bank bits = %d, but hash %q has bank_bits = %d", a.BankBits, a.Hash.Name, h.bankBits)
		}
		h.cfgFirst = cfgFirst
		ar.bankHash, cfg = h, ports
	}
	if a.LockHash != nil {
		h, ports, err := newArbHash(a.LockHash, a.AddrBits, "lock_")
		if err != nil {
			return nil, nil, err
		}
		if h.bankBits != a.LockBits() {
			return nil, nil, fmt.Errorf("lock bits = %d, but lock hash %q has a %d-bit bank_o", a.LockBits(), a.LockHash.Name, h.bankBits)
		}
		h.cfgFirst = cfgFirst + len(cfg)
		ar.lockHash, ar.lockBits = h, h.bankBits
		cfg = append(cfg, ports...)
	}
	return ar, cfg, nil
}

// dataPorts are addr_i and active_i.
func (ar *arbiter) dataPorts() []Port {
	return []Port{{Name: "addr_i", Width: ar.lanes * ar.addrBits}, {Name: "active_i", Width: ar.lanes}}
}

// offerPorts are bank_o and degree_o.
func (ar *arbiter) offerPorts() []Port {
	return []Port{{Name: "bank_o", Width: ar.lanes * ar.bankBits, Output: true}, {Name: "degree_o", Width: ar.degBits, Output: true}}
}

// lockPorts are the lock outputs (none without a lock hash).
func (ar *arbiter) lockPorts() []Port {
	if ar.lockHash == nil {
		return nil
	}
	return []Port{
		{Name: "lock_o", Width: ar.lanes * ar.lockBits, Output: true},
		{Name: "lock_degree_o", Width: ar.degBits, Output: true},
		{Name: "position_degree_o", Width: ar.degBits, Output: true},
	}
}

// arbLane returns bits k*n .. k*n+n-1 (n <= 64) of v.
func arbLane(v []uint64, k, n int) uint64 {
	lo := k * n
	w, s := lo/64, lo%64
	x := v[w] >> s
	if s+n > 64 {
		x |= v[w+1] << (64 - s)
	}
	return x & lowMask(n)
}

// arbPutLanes clears v and writes x[k] (n <= 64 bits) into bits k*n ..
// k*n+n-1 for each lane k.
func arbPutLanes(v []uint64, x *arbLaneVals, lanes, n int) {
	clear(v)
	for k := range lanes {
		lo := k * n
		w, s := lo/64, lo%64
		y := x[k] & lowMask(n)
		v[w] |= y << s
		if s+n > 64 {
			v[w+1] |= y >> (64 - s)
		}
	}
}

// load reads the warp's addresses from addrIn and computes every lane's
// bank and lock index with the configuration in the inputs in.
func (ar *arbiter) load(w *arbWarp, addrIn []uint64, in [][]uint64) {
	for k := range ar.lanes {
		a := arbLane(addrIn, k, ar.addrBits)
		w.addr[k] = a
		if ar.bankHash != nil {
			w.bank[k] = ar.bankHash.eval(a, in)
		} else {
			w.bank[k] = a & lowMask(ar.bankBits)
		}
		if ar.lockHash != nil {
			w.lock[k] = ar.lockHash.eval(a, in)
		}
	}
}

// activeMask reads a lane mask.
func (ar *arbiter) activeMask(v []uint64) uint64 { return v[0] & lowMask(ar.lanes) }

// groupMax returns the largest, over the values of key among the lanes of
// mask, number of lanes of mask with that key value; with distinct, lanes
// with equal (key, address) count once.
func groupMax(key, addr *arbLaneVals, lanes int, mask uint64, distinct bool) int {
	var counted uint64 // the lanes that count in their group
	for j := range lanes {
		if mask>>j&1 == 0 {
			continue
		}
		first := true
		if distinct {
			for l := range j {
				if mask>>l&1 == 1 && key[l] == key[j] && addr[l] == addr[j] {
					first = false
					break
				}
			}
		}
		if first {
			counted |= 1 << j
		}
	}
	best := 0
	var seen uint64 // lanes whose group has been counted
	for i := range lanes {
		if mask>>i&1 == 0 || seen>>i&1 == 1 {
			continue
		}
		n := 0
		for j := i; j < lanes; j++ {
			if mask>>j&1 == 1 && key[j] == key[i] {
				seen |= 1 << j
				n += int(counted >> j & 1)
			}
		}
		best = max(best, n)
	}
	return best
}

// degree is the bank-conflict degree of the lanes of mask.
func (ar *arbiter) degree(w *arbWarp, mask uint64) int {
	return groupMax(&w.bank, &w.addr, ar.lanes, mask, ar.broadcast)
}

// grant is the conflict-free subset of the lanes of mask: per bank, the
// lanes on the address of the bank's lowest lane of mask (broadcast), or
// that lane alone.
func (ar *arbiter) grant(w *arbWarp, mask uint64) uint64 {
	var g uint64
	for i := range ar.lanes {
		if mask>>i&1 == 0 {
			continue
		}
		k := i
		for l := range i {
			if mask>>l&1 == 1 && w.bank[l] == w.bank[i] {
				k = l
				break
			}
		}
		if k == i || (ar.broadcast && w.addr[k] == w.addr[i]) {
			g |= 1 << i
		}
	}
	return g
}

// putOffer writes bank_o and degree_o at out[first], out[first+1].
func (ar *arbiter) putOffer(out [][]uint64, first int, w *arbWarp, mask uint64) {
	arbPutLanes(out[first], &w.bank, ar.lanes, ar.bankBits)
	putField(out[first+1], ar.degBits, uint64(ar.degree(w, mask)))
}

// putLocks writes lock_o, lock_degree_o and position_degree_o from
// out[first] on; nothing without a lock hash.
func (ar *arbiter) putLocks(out [][]uint64, first int, w *arbWarp, mask uint64) {
	if ar.lockHash == nil {
		return
	}
	arbPutLanes(out[first], &w.lock, ar.lanes, ar.lockBits)
	putField(out[first+1], ar.degBits, uint64(groupMax(&w.lock, &w.addr, ar.lanes, mask, true)))
	putField(out[first+2], ar.degBits, uint64(groupMax(&w.addr, &w.addr, ar.lanes, mask, false)))
}

// arbErr names the arbiter in an error.
func arbErr(a *specs.BankArbiter, err error) error {
	return fmt.Errorf("model: bank_arbiter %q (%s): %w", a.Name, a.Variant(), err)
}

// ---------------------------------------------------------------------------
// The combinational arbiter.

type bankArbiter struct{ arbiter }

// ForBankArbiter returns the model of a combinational bank arbiter
// (serialize = false); its errors name the unit.
func ForBankArbiter(a *specs.BankArbiter) (Model, error) {
	if a == nil {
		return nil, errors.New("model: nil bank_arbiter unit")
	}
	if a.Serialize {
		return nil, arbErr(a, errors.New("serialize = true: the unit is clocked, see ForSerialBankArbiter"))
	}
	ar, cfg, err := newArbiter(a, 0)
	if err != nil {
		return nil, arbErr(a, err)
	}
	ar.ports = append(ar.dataPorts(), cfg...)
	ar.ports = append(ar.ports, ar.offerPorts()...)
	ar.ports = append(ar.ports, Port{Name: "grant_o", Width: ar.lanes, Output: true})
	ar.ports = append(ar.ports, ar.lockPorts()...)
	return &bankArbiter{*ar}, nil
}

func (m *bankArbiter) Ports() []Port { return m.ports }

// Eval keeps the warp in fixed-size arrays on the stack, so it neither
// allocates nor shares state: it is safe for concurrent use.
func (m *bankArbiter) Eval(in, out [][]uint64) {
	checkLens(m.ports, in, out)
	var w arbWarp
	m.load(&w, in[0], in)
	mask := m.activeMask(in[1])
	m.putOffer(out, 0, &w, mask)
	putField(out[2], m.lanes, m.grant(&w, mask))
	m.putLocks(out, 3, &w, mask)
}

// ---------------------------------------------------------------------------
// The serializing arbiter.

// Input and output indices of the serializing arbiter.
const (
	sarbRst, sarbValid, sarbAddr, sarbActive = 0, 1, 2, 3
	sarbReady, sarbGrantValid, sarbGrant     = 0, 1, 2
	sarbLast, sarbOffer, sarbLocks           = 3, 4, 6
)

type serialBankArbiter struct {
	arbiter
	busy bool
	rem  uint64  // lanes of the held warp not yet granted
	held arbWarp // the held warp's addresses and banks (accept-time configuration)
}

// ForSerialBankArbiter returns the model of a serializing bank arbiter
// (serialize = true); its errors name the unit.
func ForSerialBankArbiter(a *specs.BankArbiter) (Sequential, error) {
	if a == nil {
		return nil, errors.New("model: nil bank_arbiter unit")
	}
	if !a.Serialize {
		return nil, arbErr(a, errors.New("serialize = false: the unit is combinational, see ForBankArbiter"))
	}
	ar, cfg, err := newArbiter(a, sarbAddr)
	if err != nil {
		return nil, arbErr(a, err)
	}
	ar.ports = []Port{{Name: "rst", Width: 1}, {Name: "valid_i", Width: 1}}
	ar.ports = append(ar.ports, ar.dataPorts()...)
	ar.ports = append(ar.ports, cfg...)
	ar.ports = append(ar.ports,
		Port{Name: "ready_o", Width: 1, Output: true},
		Port{Name: "grant_valid_o", Width: 1, Output: true},
		Port{Name: "grant_o", Width: ar.lanes, Output: true},
		Port{Name: "last_o", Width: 1, Output: true})
	ar.ports = append(ar.ports, ar.offerPorts()...)
	ar.ports = append(ar.ports, ar.lockPorts()...)
	return &serialBankArbiter{arbiter: *ar}, nil
}

func (s *serialBankArbiter) Ports() []Port { return s.ports }

func (s *serialBankArbiter) Reset() {
	s.busy, s.rem = false, 0
	s.held = arbWarp{}
}

func (s *serialBankArbiter) Cycle(in, out [][]uint64) {
	checkLens(s.ports, in, out)
	var w arbWarp // the warp offered
	s.load(&w, in[sarbAddr], in)
	mask := s.activeMask(in[sarbActive])

	var grant uint64
	last := false
	if s.busy {
		grant = s.grant(&s.held, s.rem)
		last = s.rem&^grant == 0
	}
	ready := !s.busy || last
	putField(out[sarbReady], 1, b2u(ready))
	putField(out[sarbGrantValid], 1, b2u(s.busy))
	putField(out[sarbGrant], s.lanes, grant)
	putField(out[sarbLast], 1, b2u(last))
	s.putOffer(out, sarbOffer, &w, mask)
	s.putLocks(out, sarbLocks, &w, mask)

	switch {
	case in[sarbRst][0]&1 == 1:
		s.Reset()
	case in[sarbValid][0]&1 == 1 && ready:
		s.busy, s.rem = true, mask
		s.held.addr, s.held.bank = w.addr, w.bank
	case s.busy:
		s.rem &^= grant
		s.busy = !last
	}
}
