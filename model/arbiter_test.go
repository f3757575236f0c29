package model

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// ---------------------------------------------------------------------------
// Helpers.

// arbRef is a resolved reference to h, as the loader leaves it.
func arbRef(attr string, h *specs.Hash) *specs.UnitRef {
	return &specs.UnitRef{Attr: attr, Kind: "hash", Name: h.Name, Unit: h}
}

// arbSpec is an arbiter with bank = address mod 2^bankBits.
func arbSpec(lanes, addrBits, bankBits int) *specs.BankArbiter {
	return &specs.BankArbiter{Name: "arb", Lanes: lanes, AddrBits: addrBits, BankBits: bankBits, Broadcast: true}
}

// withHash sets the bank hash (and the bank bits, as the loader does).
func arbWithHash(a *specs.BankArbiter, h *specs.Hash) *specs.BankArbiter {
	a.Hash, a.BankBits = arbRef("hash", h), h.BankBits
	return a
}

// fermiLocks is Fermi's lock addressing (002 Fig. 2): the lock of a word
// address is its 10 low bits.
func arbFermiLocks(addrBits int) *specs.Hash {
	return &specs.Hash{Name: "locks", Function: specs.BitvectorPerm, AddrBits: addrBits, BankBits: 10}
}

// arbPorts are a model's port values, found by name.
type arbPorts struct {
	ports   []Port
	in, out [][]uint64
	idx     map[string]int // index into in or out
}

func newArbPorts(ports []Port) *arbPorts {
	p := &arbPorts{ports: ports, idx: map[string]int{}}
	for _, q := range ports {
		v := make([]uint64, (q.Width+63)/64)
		if q.Output {
			p.idx[q.Name] = len(p.out)
			p.out = append(p.out, v)
		} else {
			p.idx[q.Name] = len(p.in)
			p.in = append(p.in, v)
		}
	}
	return p
}

func (p *arbPorts) port(name string) Port {
	for _, q := range p.ports {
		if q.Name == name {
			return q
		}
	}
	panic("no port " + name)
}

// set writes a value of at most 64 bits into input name.
func (p *arbPorts) set(name string, v uint64) {
	w := p.in[p.idx[name]]
	clear(w)
	w[0] = v
}

// setLanes packs one n-bit value per lane into input name.
func (p *arbPorts) setLanes(name string, vals []uint64) {
	w := p.in[p.idx[name]]
	n := p.port(name).Width / len(vals)
	clear(w)
	for k, x := range vals {
		for b := range n {
			if x>>b&1 == 1 {
				w[(k*n+b)/64] |= 1 << ((k*n + b) % 64)
			}
		}
	}
}

// get reads output name (at most 64 bits).
func (p *arbPorts) get(name string) uint64 { return p.out[p.idx[name]][0] }

// getLanes unpacks output name into lanes n-bit values.
func (p *arbPorts) getLanes(name string, lanes int) []uint64 {
	w := p.out[p.idx[name]]
	n := p.port(name).Width / lanes
	vals := make([]uint64, lanes)
	for k := range vals {
		for b := range n {
			vals[k] |= (w[(k*n+b)/64] >> ((k*n + b) % 64) & 1) << b
		}
	}
	return vals
}

func mustArbiter(t testing.TB, a *specs.BankArbiter) (Model, *arbPorts) {
	t.Helper()
	m, err := ForBankArbiter(a)
	if err != nil {
		t.Fatal(err)
	}
	return m, newArbPorts(m.Ports())
}

func mustSerialArbiter(t testing.TB, a *specs.BankArbiter) (Sequential, *arbPorts) {
	t.Helper()
	s := *a
	s.Serialize = true
	m, err := ForSerialBankArbiter(&s)
	if err != nil {
		t.Fatal(err)
	}
	m.Reset()
	return m, newArbPorts(m.Ports())
}

// evalWarp evaluates the combinational arbiter on one warp.
func arbEval(m Model, p *arbPorts, addrs []uint64, active uint64) {
	p.setLanes("addr_i", addrs)
	p.set("active_i", active)
	m.Eval(p.in, p.out)
}

// mask builds a lane mask from lane numbers.
func arbMask(lanes ...int) uint64 {
	var m uint64
	for _, l := range lanes {
		m |= 1 << l
	}
	return m
}

// refArbiter is a second, map-based reading of the definitions: the
// degree, grant, lock degree and position degree of a warp.
func refArbiter(addrs, banks, locks []uint64, active uint64, broadcast bool) (degree int, grant uint64, lockDeg, posDeg int) {
	perBank := map[uint64]map[uint64]int{} // bank -> address -> active lanes
	perLock := map[uint64]map[uint64]bool{}
	perAddr := map[uint64]int{}
	lowest := map[uint64]int{} // bank -> lowest active lane
	for i, a := range addrs {
		if active>>i&1 == 0 {
			continue
		}
		b := banks[i]
		if perBank[b] == nil {
			perBank[b] = map[uint64]int{}
			lowest[b] = i
		}
		perBank[b][a]++
		if locks != nil {
			if perLock[locks[i]] == nil {
				perLock[locks[i]] = map[uint64]bool{}
			}
			perLock[locks[i]][a] = true
		}
		perAddr[a]++
	}
	for _, as := range perBank {
		n := len(as)
		if !broadcast {
			n = 0
			for _, c := range as {
				n += c
			}
		}
		degree = max(degree, n)
	}
	for i, a := range addrs {
		if active>>i&1 == 1 {
			k := lowest[banks[i]]
			if k == i || (broadcast && addrs[k] == a) {
				grant |= 1 << i
			}
		}
	}
	for _, as := range perLock {
		lockDeg = max(lockDeg, len(as))
	}
	for _, c := range perAddr {
		posDeg = max(posDeg, c)
	}
	return degree, grant, lockDeg, posDeg
}

// ---------------------------------------------------------------------------
// Ports and refusals.

func arbPortList(ps []Port) string {
	var s []string
	for _, p := range ps {
		d := "in"
		if p.Output {
			d = "out"
		}
		s = append(s, fmt.Sprintf("%s %s[%d]", d, p.Name, p.Width))
	}
	return strings.Join(s, ", ")
}

func TestBankArbiter_Ports(t *testing.T) {
	cfgHash := &specs.Hash{Name: "bx", Function: specs.BitvectorXor, AddrBits: 10, BankBits: 3, Configurable: true}
	cfgLock := &specs.Hash{Name: "lk", Function: specs.BitvectorPerm, AddrBits: 12, BankBits: 4, Configurable: true}
	cases := []struct {
		a    *specs.BankArbiter
		want string
	}{
		{arbSpec(4, 8, 2),
			"in addr_i[32], in active_i[4], out bank_o[8], out degree_o[3], out grant_o[4]"},
		{arbSpec(3, 8, 2), // D = clog2(4) = 2
			"in addr_i[24], in active_i[3], out bank_o[6], out degree_o[2], out grant_o[3]"},
		{arbSpec(64, 64, 16),
			"in addr_i[4096], in active_i[64], out bank_o[1024], out degree_o[7], out grant_o[64]"},
		{func() *specs.BankArbiter {
			a := arbWithHash(arbSpec(8, 12, 0), cfgHash)
			a.LockHash = arbRef("lock_hash", cfgLock)
			return a
		}(),
			"in addr_i[96], in active_i[8], in hash_cfg_k1_i[4], in hash_cfg_k2_i[4], in hash_cfg_mask_i[3], in lock_cfg_k_i[4], " +
				"out bank_o[24], out degree_o[4], out grant_o[8], out lock_o[32], out lock_degree_o[4], out position_degree_o[4]"},
		{func() *specs.BankArbiter {
			a := arbSpec(8, 12, 5)
			a.LockHash = arbRef("lock_hash", arbFermiLocks(12))
			return a
		}(),
			"in addr_i[96], in active_i[8], out bank_o[40], out degree_o[4], out grant_o[8], out lock_o[80], out lock_degree_o[4], out position_degree_o[4]"},
	}
	for _, c := range cases {
		m, err := ForBankArbiter(c.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := arbPortList(m.Ports()); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.a.Variant(), got, c.want)
		}
		s := *c.a
		s.Serialize = true
		sm, err := ForSerialBankArbiter(&s)
		if err != nil {
			t.Fatal(err)
		}
		// The serializing unit: rst and valid_i first, then the same
		// inputs; ready_o, grant_valid_o, grant_o, last_o, then the
		// combinational outputs without grant_o.
		ins, outs := strings.Split(c.want, ", out ")[0], "out "+strings.SplitN(c.want, ", out ", 2)[1]
		grant := fmt.Sprintf("out grant_o[%d]", c.a.Lanes)
		outs = strings.Replace(outs, ", "+grant, "", 1)
		want := "in rst[1], in valid_i[1], " + ins + ", out ready_o[1], out grant_valid_o[1], " + grant + ", out last_o[1], " + outs
		if got := arbPortList(sm.Ports()); got != want {
			t.Errorf("%s, serializing:\n got %s\nwant %s", c.a.Variant(), got, want)
		}
	}
}

func TestBankArbiter_Refuses(t *testing.T) {
	wide := &specs.Hash{Name: "wide", Function: specs.FixedXor, AddrBits: 14, BankBits: 5}
	badHash := &specs.Hash{Name: "bad", Function: specs.FixedXor, AddrBits: 14, BankBits: 5, Configurable: true}
	cases := []struct {
		name string
		a    *specs.BankArbiter
		want string
	}{
		{"one lane", arbSpec(1, 8, 2), "lanes = 1"},
		{"65 lanes", arbSpec(65, 8, 2), "lanes = 65"},
		{"no address bits", arbSpec(4, 0, 2), "addr_bits = 0"},
		{"65 address bits", arbSpec(4, 65, 2), "addr_bits = 65"},
		{"no bank bits", arbSpec(4, 8, 0), "bank bits = 0"},
		{"17 bank bits", arbSpec(4, 32, 17), "bank bits = 17"},
		{"unresolved hash", func() *specs.BankArbiter {
			a := arbSpec(4, 14, 5)
			a.Hash = &specs.UnitRef{Attr: "hash", Kind: "hash", Name: "x"}
			return a
		}(), "not resolved"},
		{"unresolved lock hash", func() *specs.BankArbiter {
			a := arbSpec(4, 14, 5)
			a.LockHash = &specs.UnitRef{Attr: "lock_hash", Kind: "hash", Name: "x"}
			return a
		}(), "not resolved"},
		{"hash wider than the arbiter", arbWithHash(arbSpec(4, 12, 0), wide), "more than addr_bits = 12"},
		{"lock hash wider than the arbiter", func() *specs.BankArbiter {
			a := arbSpec(4, 12, 5)
			a.LockHash = arbRef("lock_hash", wide)
			return a
		}(), "more than addr_bits = 12"},
		{"hash the model refuses", arbWithHash(arbSpec(4, 14, 0), badHash), "no configurable form"},
		{"bank bits unlike the hash's", func() *specs.BankArbiter {
			a := arbWithHash(arbSpec(4, 14, 0), wide)
			a.BankBits = 4
			return a
		}(), "bank_bits = 5"},
	}
	for _, c := range cases {
		for _, serial := range []bool{false, true} {
			a := *c.a
			a.Serialize = serial
			var err error
			if serial {
				_, err = ForSerialBankArbiter(&a)
			} else {
				_, err = ForBankArbiter(&a)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"arb"`) {
				t.Errorf("%s (serialize %v): error %v, want one naming the unit with %q", c.name, serial, err, c.want)
			}
		}
	}
	if _, err := ForBankArbiter(nil); err == nil {
		t.Error("ForBankArbiter(nil) succeeded")
	}
	if _, err := ForSerialBankArbiter(nil); err == nil {
		t.Error("ForSerialBankArbiter(nil) succeeded")
	}
	s := arbSpec(4, 8, 2)
	s.Serialize = true
	if _, err := ForBankArbiter(s); err == nil || !strings.Contains(err.Error(), "ForSerialBankArbiter") {
		t.Errorf("ForBankArbiter(serialize = true): %v", err)
	}
	if _, err := ForSerialBankArbiter(arbSpec(4, 8, 2)); err == nil || !strings.Contains(err.Error(), "ForBankArbiter") {
		t.Errorf("ForSerialBankArbiter(serialize = false): %v", err)
	}
}

// ---------------------------------------------------------------------------
// Hand-worked examples.

func TestBankArbiter_Examples(t *testing.T) {
	// 8 lanes, 8-bit addresses, 4 banks (bank = address mod 4).
	type ex struct {
		name      string
		broadcast bool
		addrs     []uint64
		active    uint64
		degree    uint64
		grant     uint64
	}
	distinct := []uint64{1, 5, 9, 13, 17, 21, 25, 29} // all in bank 1
	same := []uint64{7, 7, 7, 7, 7, 7, 7, 7}
	mixed := []uint64{0, 4, 0, 8, 1, 5, 2, 2} // banks 0 0 0 0 1 1 2 2
	cases := []ex{
		{"no active lane", true, mixed, 0, 0, 0},
		{"no active lane, no broadcast", false, same, 0, 0, 0},
		{"one active lane (0)", true, distinct, arbMask(0), 1, arbMask(0)},
		{"one active lane (7)", true, distinct, arbMask(7), 1, arbMask(7)},
		{"one active lane (3), no broadcast", false, same, arbMask(3), 1, arbMask(3)},
		{"all lanes one address", true, same, 0xFF, 1, 0xFF},
		{"all lanes one address, no broadcast", false, same, 0xFF, 8, arbMask(0)},
		{"one address, lanes 2 and 6", false, same, arbMask(2, 6), 2, arbMask(2)},
		{"one bank, distinct addresses", true, distinct, 0xFF, 8, arbMask(0)},
		{"one bank, distinct addresses, no broadcast", false, distinct, 0xFF, 8, arbMask(0)},
		{"one bank, lanes 1 3 5 7", true, distinct, 0xAA, 4, arbMask(1)},
		{"one bank, lanes 0 2 4 6", true, distinct, 0x55, 4, arbMask(0)},
		// bank 0: 0 4 0 8 -> 3 distinct, the lowest lane's address 0 on
		// lanes 0 and 2; bank 1: 1 5; bank 2: 2 2 -> 1 address.
		{"mixed", true, mixed, 0xFF, 3, arbMask(0, 2, 4, 6, 7)},
		{"mixed, no broadcast", false, mixed, 0xFF, 4, arbMask(0, 4, 6)},
		// 0101: lanes 0 2 4 6 -> bank 0: 0 0, bank 1: 1, bank 2: 2.
		{"mixed, lanes 0 2 4 6", true, mixed, 0x55, 1, 0x55},
		{"mixed, lanes 0 2 4 6, no broadcast", false, mixed, 0x55, 2, arbMask(0, 4, 6)},
		// 1010: lanes 1 3 5 7 -> bank 0: 4 8, bank 1: 5, bank 2: 2.
		{"mixed, lanes 1 3 5 7", true, mixed, 0xAA, 2, arbMask(1, 5, 7)},
		// The lowest lane of bank 0 among lanes 3.. is lane 3 (address 8).
		{"mixed, lanes 3..7", true, mixed, 0xF8, 2, arbMask(3, 4, 6, 7)},
	}
	for _, c := range cases {
		a := arbSpec(8, 8, 2)
		a.Broadcast = c.broadcast
		m, p := mustArbiter(t, a)
		p.out[0][0] = ^uint64(0) // stale output bits are overwritten
		arbEval(m, p, c.addrs, c.active)
		if d, g := p.get("degree_o"), p.get("grant_o"); d != c.degree || g != c.grant {
			t.Errorf("%s: degree %d, grant %08b; want %d, %08b", c.name, d, g, c.degree, c.grant)
		}
		banks := p.getLanes("bank_o", 8)
		for k, b := range banks {
			if b != c.addrs[k]%4 {
				t.Errorf("%s: lane %d (address %d, active %d) has bank %d", c.name, k, c.addrs[k], c.active>>k&1, b)
			}
		}
	}
}

// TestBankArbiter_Straddling: high junk in the address and
// active words is ignored, and lanes straddle word boundaries.
func TestBankArbiter_Straddling(t *testing.T) {
	a := arbSpec(7, 13, 3) // 91 address bits: lane 4 straddles bits 52..64
	m, p := mustArbiter(t, a)
	addrs := []uint64{8, 16, 3, 24, 0x1FF8, 11, 8}
	p.setLanes("addr_i", addrs)
	p.in[0][1] |= ^(uint64(1)<<27 - 1) // junk above the port
	p.set("active_i", ^uint64(0))      // junk above lane 6
	m.Eval(p.in, p.out)
	// Bank 0: 8 16 24 0x1FF8 8 -> 4 distinct; lane 0's address 8 on lanes
	// 0 and 6. Bank 3: 3 11.
	if d, g := p.get("degree_o"), p.get("grant_o"); d != 4 || g != arbMask(0, 2, 6) {
		t.Errorf("degree %d, grant %07b; want 4, 1000101", d, g)
	}
	if b := p.getLanes("bank_o", 7); b[4] != 0 || b[5] != 3 {
		t.Errorf("banks %v", b)
	}
}

// TestBankArbiter_ConfigurableHash: bitvector_perm with cfg_k_i: bank =
// (address >> k) mod 4.
func TestBankArbiter_ConfigurableHash(t *testing.T) {
	h := &specs.Hash{Name: "shift", Function: specs.BitvectorPerm, AddrBits: 6, BankBits: 2, Configurable: true}
	a := arbWithHash(arbSpec(4, 8, 0), h)
	m, p := mustArbiter(t, a)
	addrs := []uint64{0, 1, 2, 3 | 0x40} // bit 6 is above the hash's 6 bits
	cases := []struct {
		k             uint64
		banks         []uint64
		degree, grant uint64
	}{
		{0, []uint64{0, 1, 2, 3}, 1, 0xF},
		{1, []uint64{0, 0, 1, 1}, 2, arbMask(0, 2)},
		{2, []uint64{0, 0, 0, 0}, 4, arbMask(0)},
		{6, []uint64{0, 0, 0, 0}, 4, arbMask(0)}, // bits at or above the hash's addr_bits read 0
	}
	for _, c := range cases {
		p.set("hash_cfg_k_i", c.k)
		arbEval(m, p, addrs, 0xF)
		if got := p.getLanes("bank_o", 4); fmt.Sprint(got) != fmt.Sprint(c.banks) {
			t.Errorf("k = %d: banks %v, want %v", c.k, got, c.banks)
		}
		if d, g := p.get("degree_o"), p.get("grant_o"); d != c.degree || g != c.grant {
			t.Errorf("k = %d: degree %d, grant %04b; want %d, %04b", c.k, d, g, c.degree, c.grant)
		}
	}
}

// TestBankArbiter_LockFig2 is 002 Fig. 2: threads 0, 4, 5 and 7 update
// addresses 0, 1024, 2048 and 3072, threads 1 and 6 addresses 32 and
// 1056, the others distinct addresses; the lock is the address mod 1024,
// the bank the address mod 32.
func TestBankArbiter_LockFig2(t *testing.T) {
	a := arbSpec(8, 14, 5)
	a.LockHash = arbRef("lock_hash", arbFermiLocks(14))
	m, p := mustArbiter(t, a)
	addrs := []uint64{0, 32, 2, 3, 1024, 2048, 1056, 3072}
	arbEval(m, p, addrs, 0xFF)
	// Bank 0 holds 0 32 1024 2048 1056 3072: degree 6. Locks: 0 on 0 1024
	// 2048 3072 (degree 4), 32 on 32 1056.
	want := map[string]uint64{"degree_o": 6, "grant_o": arbMask(0, 2, 3), "lock_degree_o": 4, "position_degree_o": 1}
	for name, v := range want {
		if got := p.get(name); got != v {
			t.Errorf("%s = %d, want %d", name, got, v)
		}
	}
	if got := p.getLanes("lock_o", 8); fmt.Sprint(got) != "[0 32 2 3 0 0 32 0]" {
		t.Errorf("lock_o = %v", got)
	}
	// Without lane 7: lock degree 3, as in the paper's figure.
	arbEval(m, p, addrs, 0x7F)
	if got := p.get("lock_degree_o"); got != 3 {
		t.Errorf("lanes 0..6: lock degree %d, want 3", got)
	}
	// A position conflict does not add a lock conflict: two lanes on 1024.
	addrs[3] = 1024
	arbEval(m, p, addrs, 0xFF)
	if l, pd := p.get("lock_degree_o"), p.get("position_degree_o"); l != 4 || pd != 2 {
		t.Errorf("with a repeated address: lock degree %d, position degree %d; want 4, 2", l, pd)
	}
}

// TestBankArbiter_Eq1 is 002 Eq. 1 and Fig. 5: thread id updates address
// id*stride when id < conflicts, else id, on 32 banks and 1024 locks.
// Stride 0 gives position conflicts (degree 1 with broadcast, conflicts
// without); stride 32 bank conflicts and no lock conflict; stride 256 an
// extra lock conflict every four bank conflicts.
func TestBankArbiter_Eq1(t *testing.T) {
	for _, broadcast := range []bool{true, false} {
		a := arbSpec(32, 14, 5)
		a.Broadcast = broadcast
		a.LockHash = arbRef("lock_hash", arbFermiLocks(14))
		m, p := mustArbiter(t, a)
		for _, stride := range []uint64{0, 32, 256} {
			for c := uint64(1); c <= 32; c++ {
				addrs := make([]uint64, 32)
				for id := range addrs {
					addrs[id] = uint64(id)
					if uint64(id) < c {
						addrs[id] *= stride
					}
				}
				arbEval(m, p, addrs, 1<<32-1)
				var deg, lock, pos uint64
				switch stride {
				case 0:
					deg, lock, pos = 1, 1, c
					if !broadcast {
						deg = c
					}
				case 32:
					deg, lock, pos = c, 1, 1
				case 256:
					deg, lock, pos = c, (c+3)/4, 1
				}
				got := [3]uint64{p.get("degree_o"), p.get("lock_degree_o"), p.get("position_degree_o")}
				if got != [3]uint64{deg, lock, pos} {
					t.Errorf("broadcast %v, stride %d, %d conflicts: degree, lock, position %v; want %v",
						broadcast, stride, c, got, [3]uint64{deg, lock, pos})
				}
			}
		}
	}
}

// arbHashes are one hash of every function, constant and configurable,
// on 12-bit addresses and 4 banks.
func arbHashes() []*specs.Hash {
	bits4 := [][]int{{0, 9}, {1}, {11, 2}, {3, 4}}
	hs := []*specs.Hash{
		{Function: specs.BitvectorPerm, K: 3},
		{Function: specs.BitvectorPerm, Configurable: true},
		{Function: specs.BitvectorXor, K1: 1, K2: 6, Mask: 5},
		{Function: specs.BitvectorXor, Configurable: true},
		{Function: specs.BitwisePerm, Bits: [][]int{{0}, {9}, {11}, {3}}},
		{Function: specs.BitwisePerm, Configurable: true},
		{Function: specs.BitwiseXor, Bits: bits4},
		{Function: specs.BitwiseXor, Configurable: true},
		{Function: specs.XorMatrix, Bits: bits4},
		{Function: specs.FixedXor},
		{Function: specs.Add},
		{Function: specs.RAP, W: 16, Permutation: []int{3, 1, 4, 15, 9, 2, 6, 5, 8, 7, 10, 0, 11, 12, 14, 13}},
		{Function: specs.RAP, W: 16, Configurable: true},
	}
	for i, h := range hs {
		h.AddrBits, h.BankBits = 12, 4
		h.Name = fmt.Sprintf("%s_%d", h.Function, i)
	}
	return hs
}

// randomizeCfg fills every configuration input with random bits.
func arbRandomCfg(p *arbPorts, r *rand.Rand) {
	for _, q := range p.ports {
		if !q.Output && strings.Contains(q.Name, "cfg_") {
			v := p.in[p.idx[q.Name]]
			for k := range v {
				v[k] = r.Uint64()
			}
		}
	}
}

// hashBanks evaluates h's own model on every lane's address and the
// arbiter's prefix_ configuration inputs.
func arbHashBanks(t *testing.T, h *specs.Hash, p *arbPorts, prefix string, addrs []uint64) []uint64 {
	t.Helper()
	hm, err := ForHash(h)
	if err != nil {
		t.Fatal(err)
	}
	hp := newArbPorts(hm.Ports())
	for _, q := range hm.Ports() {
		if !q.Output && q.Name != "addr_i" {
			copy(hp.in[hp.idx[q.Name]], p.in[p.idx[prefix+q.Name]])
		}
	}
	out := make([]uint64, len(addrs))
	for k, a := range addrs {
		hp.set("addr_i", a&(1<<h.AddrBits-1))
		hm.Eval(hp.in, hp.out)
		out[k] = hp.get("bank_o")
	}
	return out
}

// randomWarp draws addresses over a small pool of few distinct values
// (repeats and shared banks everywhere) or at random.
func arbRandomWarp(r *rand.Rand, lanes, addrBits int) []uint64 {
	am := uint64(1)<<addrBits - 1
	if addrBits == 64 {
		am = ^uint64(0)
	}
	pool := make([]uint64, 1+r.IntN(lanes))
	for i := range pool {
		pool[i] = r.Uint64() & am
		if r.IntN(2) == 0 {
			pool[i] &= 0x3F
		}
	}
	w := make([]uint64, lanes)
	for i := range w {
		w[i] = pool[r.IntN(len(pool))]
	}
	return w
}

func arbRandomMask(r *rand.Rand, lanes int) uint64 {
	m := r.Uint64()
	switch r.IntN(4) {
	case 0:
		m = ^uint64(0)
	case 1:
		m &= r.Uint64()
	}
	return m & (1<<lanes - 1)
}

// TestBankArbiter_AgainstReference compares random warps, with every
// hash function as the bank and as the lock hash, with refArbiter.
func TestBankArbiter_AgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	type arbCase struct {
		a    *specs.BankArbiter
		bank *specs.Hash
	}
	var cases []arbCase
	hs := arbHashes()
	for i, h := range hs {
		a := arbWithHash(arbSpec(2+r.IntN(30), 12+r.IntN(5), 0), h)
		a.Broadcast = i%3 != 0
		a.LockHash = arbRef("lock_hash", hs[(i+5)%len(hs)])
		cases = append(cases, arbCase{a, h})
	}
	for _, s := range [][3]int{{2, 1, 1}, {5, 3, 2}, {11, 13, 3}, {32, 14, 5}, {64, 64, 16}, {33, 61, 7}} {
		for _, b := range []bool{true, false} {
			a := arbSpec(s[0], s[1], s[2])
			a.Broadcast = b
			cases = append(cases, arbCase{a, nil})
		}
	}
	for _, c := range cases {
		a := c.a
		m, p := mustArbiter(t, a)
		for range 300 {
			arbRandomCfg(p, r)
			addrs := arbRandomWarp(r, a.Lanes, a.AddrBits)
			act := arbRandomMask(r, a.Lanes)
			arbEval(m, p, addrs, act)
			banks := make([]uint64, a.Lanes)
			for k, x := range addrs {
				banks[k] = x % (1 << a.BankBits)
			}
			if c.bank != nil {
				banks = arbHashBanks(t, c.bank, p, "hash_", addrs)
			}
			var locks []uint64
			if a.LockHash != nil {
				locks = arbHashBanks(t, a.LockHash.Hash(), p, "lock_", addrs)
				if got := p.getLanes("lock_o", a.Lanes); fmt.Sprint(got) != fmt.Sprint(locks) {
					t.Fatalf("%s: locks %v, want %v", a.Variant(), got, locks)
				}
			}
			if got := p.getLanes("bank_o", a.Lanes); fmt.Sprint(got) != fmt.Sprint(banks) {
				t.Fatalf("%s: banks %v, want %v", a.Variant(), got, banks)
			}
			deg, grant, lock, pos := refArbiter(addrs, banks, locks, act, a.Broadcast)
			if d, g := p.get("degree_o"), p.get("grant_o"); d != uint64(deg) || g != grant {
				t.Fatalf("%s: %v active %b: degree %d grant %b, want %d %b", a.Variant(), addrs, act, d, g, deg, grant)
			}
			if locks != nil {
				if l, ps := p.get("lock_degree_o"), p.get("position_degree_o"); l != uint64(lock) || ps != uint64(pos) {
					t.Fatalf("%s: %v active %b: lock degree %d position degree %d, want %d %d", a.Variant(), addrs, act, l, ps, lock, pos)
				}
			}
		}
	}
}

// TestBankArbiter_NoAllocs checks that Eval and Cycle do not allocate,
// with every hash function as bank and lock hash, and that Eval is safe
// for concurrent use.
func TestBankArbiter_NoAllocs(t *testing.T) {
	for _, h := range arbHashes() {
		a := arbWithHash(arbSpec(32, 16, 0), h)
		a.LockHash = arbRef("lock_hash", h)
		m, p := mustArbiter(t, a)
		r := rand.New(rand.NewPCG(1, 2))
		arbRandomCfg(p, r)
		p.setLanes("addr_i", arbRandomWarp(r, 32, 16))
		p.set("active_i", r.Uint64())
		if n := testing.AllocsPerRun(50, func() { m.Eval(p.in, p.out) }); n != 0 {
			t.Errorf("%s: %v allocations per Eval", a.Variant(), n)
		}
		s, sp := mustSerialArbiter(t, a)
		arbRandomCfg(sp, r)
		sp.set("valid_i", 1)
		sp.setLanes("addr_i", arbRandomWarp(r, 32, 16))
		sp.set("active_i", r.Uint64())
		if n := testing.AllocsPerRun(50, func() { s.Cycle(sp.in, sp.out) }); n != 0 {
			t.Errorf("%s: %v allocations per Cycle", a.Variant(), n)
		}
	}
	// Concurrent use: every goroutine gets the outputs of a lone Eval.
	a := arbWithHash(arbSpec(16, 12, 0), arbHashes()[3])
	m, _ := mustArbiter(t, a)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 3))
			p := newArbPorts(m.Ports())
			q := newArbPorts(m.Ports())
			for range 500 {
				arbRandomCfg(p, r)
				p.setLanes("addr_i", arbRandomWarp(r, 16, 12))
				p.set("active_i", r.Uint64())
				m.Eval(p.in, p.out)
				for k := range p.in {
					copy(q.in[k], p.in[k])
				}
				m.Eval(q.in, q.out)
				if fmt.Sprint(p.out) != fmt.Sprint(q.out) {
					t.Errorf("goroutine %d: outputs differ", g)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// ---------------------------------------------------------------------------
// The serializing arbiter.

// arbSerialOut are the serializing arbiter's outputs of one cycle.
type arbSerialOut struct {
	ready, grantValid, last bool
	grant, degree           uint64
}

func arbCycle(s Sequential, p *arbPorts, rst, valid bool, addrs []uint64, active uint64) arbSerialOut {
	p.set("rst", b2u(rst))
	p.set("valid_i", b2u(valid))
	if addrs != nil {
		p.setLanes("addr_i", addrs)
	}
	p.set("active_i", active)
	s.Cycle(p.in, p.out)
	return arbSerialOut{p.get("ready_o") == 1, p.get("grant_valid_o") == 1, p.get("last_o") == 1, p.get("grant_o"), p.get("degree_o")}
}

// TestSerialBankArbiter_Sequence walks one warp through its grants.
func TestSerialBankArbiter_Sequence(t *testing.T) {
	s, p := mustSerialArbiter(t, arbSpec(8, 8, 2))
	mixed := []uint64{0, 4, 0, 8, 1, 5, 2, 2} // banks 0 0 0 0 1 1 2 2; degree 3
	idle := arbCycle(s, p, false, false, mixed, 0xFF)
	if !idle.ready || idle.grantValid || idle.last || idle.grant != 0 || idle.degree != 3 {
		t.Fatalf("idle, offered nothing: %+v (degree_o is the offered warp's)", idle)
	}
	if o := arbCycle(s, p, false, true, mixed, 0xFF); !o.ready || o.grantValid {
		t.Fatalf("accept cycle: %+v", o)
	}
	want := []uint64{arbMask(0, 2, 4, 6, 7), arbMask(1, 5), arbMask(3)}
	other := []uint64{3, 3, 3, 3, 3, 3, 3, 3}
	for i, g := range want {
		// A different warp offered meanwhile, not accepted until the last.
		o := arbCycle(s, p, false, true, other, 0x0F)
		last := i == len(want)-1
		if !o.grantValid || o.grant != g || o.last != last || o.ready != last || o.degree != 1 {
			t.Fatalf("grant cycle %d: %+v, want grant %08b last %v", i, o, g, last)
		}
	}
	// The other warp (lanes 0..3 on one address) was accepted in the last
	// grant cycle: one grant, back to back.
	if o := arbCycle(s, p, false, false, nil, 0); !o.grantValid || o.grant != 0x0F || !o.last || !o.ready {
		t.Fatalf("back-to-back warp: %+v", o)
	}
	if o := arbCycle(s, p, false, false, nil, 0); o.grantValid || !o.ready {
		t.Fatalf("after the last grant: %+v", o)
	}
	// An empty warp has one empty grant cycle.
	arbCycle(s, p, false, true, mixed, 0)
	if o := arbCycle(s, p, false, false, nil, 0); !o.grantValid || o.grant != 0 || !o.last || !o.ready {
		t.Fatalf("empty warp: %+v", o)
	}
	// Reset in flight.
	arbCycle(s, p, false, true, mixed, 0xFF)
	if o := arbCycle(s, p, true, true, other, 0xFF); !o.grantValid || o.grant != want[0] || o.ready {
		t.Fatalf("reset cycle (outputs from the state): %+v", o)
	}
	if o := arbCycle(s, p, false, false, nil, 0); o.grantValid || !o.ready || o.grant != 0 {
		t.Fatalf("after reset: %+v", o)
	}
	// A reset in the accept cycle drops the warp.
	arbCycle(s, p, true, true, mixed, 0xFF)
	if o := arbCycle(s, p, false, false, nil, 0); o.grantValid || !o.ready {
		t.Fatalf("reset in the accept cycle: %+v", o)
	}
}

// TestSerialBankArbiter_AcceptTimeConfig: the held warp keeps the banks of
// the configuration it was accepted with.
func TestSerialBankArbiter_AcceptTimeConfig(t *testing.T) {
	h := &specs.Hash{Name: "shift", Function: specs.BitvectorPerm, AddrBits: 6, BankBits: 2, Configurable: true}
	s, p := mustSerialArbiter(t, arbWithHash(arbSpec(4, 8, 0), h))
	addrs := []uint64{0, 1, 2, 3}
	p.set("hash_cfg_k_i", 2) // all in bank 0: degree 4
	arbCycle(s, p, false, true, addrs, 0xF)
	p.set("hash_cfg_k_i", 0) // one bank each now, but not for the held warp
	for i := range 4 {
		o := arbCycle(s, p, false, false, addrs, 0xF)
		if o.grant != 1<<i || o.last != (i == 3) || o.degree != 1 {
			t.Fatalf("grant cycle %d: %+v", i, o)
		}
	}
}

// TestSerialBankArbiter_Properties drives random warps with bubbles,
// back-to-back offers and resets, and checks each accepted warp: its
// grant cycles number its degree (1 when empty), its grants are disjoint,
// conflict-free and cover its active mask; and the offered warp's outputs
// equal the combinational arbiter's.
func TestSerialBankArbiter_Properties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	hs := arbHashes()
	specsList := []*specs.BankArbiter{arbSpec(8, 8, 2), arbSpec(32, 14, 5), arbSpec(5, 3, 1), arbSpec(64, 64, 16)}
	for i, h := range []*specs.Hash{hs[1], hs[3], hs[10], hs[12]} {
		a := arbWithHash(arbSpec(4+7*i, 13, 0), h)
		a.LockHash = arbRef("lock_hash", arbFermiLocks(12))
		specsList = append(specsList, a)
	}
	for _, a0 := range specsList {
		for _, broadcast := range []bool{true, false} {
			a := *a0
			a.Broadcast = broadcast
			s, p := mustSerialArbiter(t, &a)
			cm, cp := mustArbiter(t, &a)
			var (
				busy            bool
				addrs           []uint64
				active, granted uint64
				cycles, want    int
				banks           []uint64
				warps, resets   int
				offer           []uint64
				offerAct        uint64
				offering        bool
			)
			for c := 0; c < 4000; c++ {
				if !offering && r.IntN(3) != 0 {
					offer, offerAct, offering = arbRandomWarp(r, a.Lanes, a.AddrBits), arbRandomMask(r, a.Lanes), true
					if r.IntN(10) == 0 {
						offerAct = 0
					}
				}
				if r.IntN(7) == 0 {
					arbRandomCfg(p, r)
				}
				rst := r.IntN(60) == 0
				w := offer
				if !offering {
					w = arbRandomWarp(r, a.Lanes, a.AddrBits)
				}
				o := arbCycle(s, p, rst, offering, w, offerAct)
				// The offered warp's outputs are the combinational ones.
				for k := range cp.in {
					copy(cp.in[k], p.in[p.idx[cm.Ports()[k].Name]])
				}
				cm.Eval(cp.in, cp.out)
				if o.degree != cp.get("degree_o") || fmt.Sprint(p.out[p.idx["bank_o"]]) != fmt.Sprint(cp.out[cp.idx["bank_o"]]) {
					t.Fatalf("%s cycle %d: offered warp's outputs differ from the combinational arbiter's", a.Variant(), c)
				}
				if a.LockHash != nil {
					for _, n := range []string{"lock_o", "lock_degree_o", "position_degree_o"} {
						if fmt.Sprint(p.out[p.idx[n]]) != fmt.Sprint(cp.out[cp.idx[n]]) {
							t.Fatalf("%s cycle %d: %s differs from the combinational arbiter's", a.Variant(), c, n)
						}
					}
				}
				if o.grantValid != busy {
					t.Fatalf("%s cycle %d: grant_valid_o %v, busy %v", a.Variant(), c, o.grantValid, busy)
				}
				if o.ready != (!busy || o.last) {
					t.Fatalf("%s cycle %d: ready_o %v, last_o %v, busy %v", a.Variant(), c, o.ready, o.last, busy)
				}
				if busy {
					cycles++
					if o.grant&granted != 0 || o.grant&^active != 0 {
						t.Fatalf("%s cycle %d: grant %b repeats or strays (active %b, granted %b)", a.Variant(), c, o.grant, active, granted)
					}
					granted |= o.grant
					// Conflict-free: one address per bank (one lane without broadcast).
					perBank := map[uint64]uint64{}
					for k := range a.Lanes {
						if o.grant>>k&1 == 1 {
							if x, ok := perBank[banks[k]]; ok && (!broadcast || x != addrs[k]) {
								t.Fatalf("%s cycle %d: grant %b has a bank conflict", a.Variant(), c, o.grant)
							}
							perBank[banks[k]] = addrs[k]
						}
					}
					if o.last != (granted == active) {
						t.Fatalf("%s cycle %d: last_o %v with %b of %b granted", a.Variant(), c, o.last, granted, active)
					}
					if o.last && !rst {
						if cycles != max(1, want) {
							t.Fatalf("%s: warp of degree %d took %d grant cycles", a.Variant(), want, cycles)
						}
						warps++
					}
				}
				switch {
				case rst:
					busy, offering = false, false
					resets++
				case offering && o.ready:
					busy, addrs, active, granted, cycles = true, w, offerAct, 0, 0
					want = int(o.degree)
					banks = cp.getLanes("bank_o", a.Lanes)
					offering = false
				case busy && o.last:
					busy = false
				}
			}
			if warps < 300 || resets < 20 {
				t.Errorf("%s: %d warps, %d resets", a.Variant(), warps, resets)
			}
		}
	}
}

// TestSerialBankArbiter_Bubbles: with valid_i low an idle arbiter stays
// idle whatever addr_i and active_i hold.
func TestSerialBankArbiter_Bubbles(t *testing.T) {
	s, p := mustSerialArbiter(t, arbSpec(8, 8, 3))
	r := rand.New(rand.NewPCG(3, 3))
	for c := range 200 {
		o := arbCycle(s, p, false, false, arbRandomWarp(r, 8, 8), r.Uint64())
		if !o.ready || o.grantValid || o.last || o.grant != 0 {
			t.Fatalf("cycle %d: %+v", c, o)
		}
	}
	if bits.OnesCount64(p.get("grant_o")) != 0 {
		t.Fatal("grant_o not 0")
	}
}
