package units

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// arbTestRef is a resolved reference to h, as the loader leaves it.
func arbTestRef(attr string, h *specs.Hash) *specs.UnitRef {
	return &specs.UnitRef{Attr: attr, Kind: "hash", Name: h.Name, Unit: h}
}

// arbTestSpecs are arbiters of every kind of bank mapping: address mod
// 2^bank_bits (small, wide, odd lane counts), constant and configurable
// hashes, non-linear ones (add, rap), and a lock hash.
func arbTestSpecs() []*specs.BankArbiter {
	mod := func(name string, lanes, addrBits, bankBits int, broadcast bool) *specs.BankArbiter {
		return &specs.BankArbiter{Name: name, Lanes: lanes, AddrBits: addrBits, BankBits: bankBits, Broadcast: broadcast}
	}
	hashed := func(name string, lanes, addrBits int, h *specs.Hash) *specs.BankArbiter {
		return &specs.BankArbiter{Name: name, Lanes: lanes, AddrBits: addrBits, BankBits: h.BankBits,
			Hash: arbTestRef("hash", h), Broadcast: true}
	}
	locks := &specs.Hash{Name: "locks", Function: specs.BitvectorPerm, AddrBits: 14, BankBits: 10}
	atomics := mod("atomics", 32, 14, 5, false)
	atomics.LockHash = arbTestRef("lock_hash", locks)
	xorCfg := hashed("xor_cfg", 16, 16, &specs.Hash{Name: "bx", Function: specs.BitvectorXor, AddrBits: 14, BankBits: 4, Configurable: true})
	xorCfg.LockHash = arbTestRef("lock_hash", &specs.Hash{Name: "lk", Function: specs.BitwisePerm, AddrBits: 16, BankBits: 6, Configurable: true})
	return []*specs.BankArbiter{
		mod("small", 8, 8, 2, true),
		mod("tiny", 4, 3, 2, true), // two addresses per bank
		mod("odd", 7, 13, 3, true), // lanes straddle words
		mod("wide", 64, 64, 16, true),
		atomics,
		hashed("fixed_xor", 32, 14, &specs.Hash{Name: "fx", Function: specs.FixedXor, AddrBits: 14, BankBits: 5}),
		hashed("add", 32, 14, &specs.Hash{Name: "ad", Function: specs.Add, AddrBits: 14, BankBits: 5}),
		hashed("add_wide", 16, 40, &specs.Hash{Name: "ad", Function: specs.Add, AddrBits: 12, BankBits: 6}),
		hashed("rap_cfg", 32, 20, &specs.Hash{Name: "rp", Function: specs.RAP, AddrBits: 10, BankBits: 5, W: 32, Configurable: true}),
		xorCfg,
	}
}

// arbTestInputs are the combinational model's inputs as design ports.
func arbTestInputs(t *testing.T, a *specs.BankArbiter) (model.Model, []*netlist.Port) {
	t.Helper()
	m, err := model.ForBankArbiter(a)
	if err != nil {
		t.Fatal(err)
	}
	var ins []*netlist.Port
	for _, p := range m.Ports() {
		if !p.Output {
			ins = append(ins, &netlist.Port{Name: p.Name, Dir: netlist.In, Bits: make(netlist.Bus, p.Width)})
		}
	}
	return m, ins
}

// arbTestOuts evaluates m on v and returns its outputs by name.
func arbTestOuts(m model.Model, v verify.Vector) map[string][]uint64 {
	var out [][]uint64
	var names []string
	for _, p := range m.Ports() {
		if p.Output {
			out = append(out, make([]uint64, (p.Width+63)/64))
			names = append(names, p.Name)
		}
	}
	m.Eval(v, out)
	byName := map[string][]uint64{}
	for i, n := range names {
		byName[n] = out[i]
	}
	return byName
}

// addrsPerBank is the most distinct addresses one bank can hold without a
// hash: 2^(addr_bits - bank_bits).
func addrsPerBank(a *specs.BankArbiter) int {
	if a.Hash != nil || a.AddrBits-a.BankBits >= 7 {
		return specs.MaxArbiterLanes
	}
	return 1 << (a.AddrBits - a.BankBits)
}

func TestArbiterVectors_Corners(t *testing.T) {
	for _, a := range arbTestSpecs() {
		m, ins := arbTestInputs(t, a)
		vs := arbiterVectors(a)(ins, 1)
		if len(vs) == 0 {
			t.Fatalf("%s: no vectors", a.Name)
		}
		L, A, B := a.Lanes, a.AddrBits, a.BankBits
		full := verify.Mask(L)
		am := verify.Mask(A)
		seen := map[string]int{}
		cfgs := map[string]bool{}
		for _, v := range vs {
			if len(v) != len(ins) {
				t.Fatalf("%s: a vector of %d ports for %d inputs", a.Name, len(v), len(ins))
			}
			addrs := arbGetLanes(v[0], L, A)
			act := v[1][0]
			if act&^full != 0 {
				t.Errorf("%s: active_i %#x has bits above the lanes", a.Name, act)
			}
			cfgs[fmt.Sprint(v[2:])] = true
			outs := arbTestOuts(m, v)
			banks := arbGetLanes(outs["bank_o"], L, B)
			distinct := map[uint64]bool{}
			oneBank := true
			for k := range L {
				if act>>k&1 == 1 {
					distinct[addrs[k]] = true
					if banks[k] != banks[0] {
						oneBank = false
					}
				}
			}
			switch {
			case act == 0:
				seen[arbCornerEmpty]++
			case act == 1:
				seen[arbCornerFirst]++
			case act == 1<<(L-1):
				seen[arbCornerLast]++
			case act&(act-1) == 0:
				seen[arbCornerMiddle]++
			case act == full && len(distinct) == 1:
				seen[arbCornerOneAddr]++
			case act == full && oneBank && len(distinct) == min(L, addrsPerBank(a)):
				seen[arbCornerOneBank]++
				if d := outs["degree_o"][0]; d != uint64(len(distinct)) {
					t.Errorf("%s: one bank with %d addresses has degree %d", a.Name, len(distinct), d)
				}
			}
			switch act {
			case 0x5555555555555555 & full:
				seen[arbCornerAlt01]++
			case 0xAAAAAAAAAAAAAAAA & full:
				seen[arbCornerAlt10]++
			}
			if act == full {
				for name, step := range map[string]uint64{arbCornerStride1: 1, arbCornerStride2: 2, arbCornerStrideB: 1 << B} {
					ok := true
					for k := range L {
						ok = ok && addrs[k] == (addrs[0]+uint64(k)*step)&am
					}
					if ok {
						seen[name]++
					}
				}
			}
			if act != full && act&(act-1) != 0 && len(distinct) >= 2 && len(distinct) <= 4 {
				seen[arbCornerRandom]++
			}
			if a.LockHash != nil && act == full && len(distinct) >= min(L, 16) {
				// All lanes on one lock (Fermi's locks leave 16 addresses
				// of 14 bits on each).
				locks := arbGetLanes(outs["lock_o"], L, a.LockBits())
				if !slices.ContainsFunc(locks, func(l uint64) bool { return l != locks[0] }) {
					seen[arbCornerOneLock]++
					if d := outs["lock_degree_o"][0]; d != uint64(len(distinct)) {
						t.Errorf("%s: one lock with %d addresses has lock degree %d", a.Name, len(distinct), d)
					}
				}
			}
		}
		want := []string{arbCornerEmpty, arbCornerFirst, arbCornerMiddle, arbCornerLast, arbCornerOneAddr, arbCornerOneBank,
			arbCornerAlt01, arbCornerAlt10, arbCornerStride1, arbCornerStride2, arbCornerStrideB, arbCornerRandom}
		if a.LockHash != nil {
			want = append(want, arbCornerOneLock)
		}
		for _, c := range want {
			if seen[c] == 0 {
				t.Errorf("%s: no vector for the corner %q (%d vectors: %v)", a.Name, c, len(vs), seen)
			}
		}
		if seen[arbCornerRandom] < 3 {
			t.Errorf("%s: %d random warps over a few addresses", a.Name, seen[arbCornerRandom])
		}
		if len(ins) > 2 && len(cfgs) < 3 {
			t.Errorf("%s: %d distinct configurations", a.Name, len(cfgs))
		}
		// Reproducible from the seed, and another seed draws others.
		if again := arbiterVectors(a)(ins, 1); fmt.Sprint(again) != fmt.Sprint(vs) {
			t.Errorf("%s: the vectors of seed 1 differ between calls", a.Name)
		}
		if other := arbiterVectors(a)(ins, 2); fmt.Sprint(other) == fmt.Sprint(vs) {
			t.Errorf("%s: seeds 1 and 2 give the same vectors", a.Name)
		}
	}
}

// TestArbiterVectors_OneBankWithHash: with a hash, the one-bank warp has
// as many distinct addresses as lanes (the search finds them), and the
// configuration it was found with is the one in the vector.
func TestArbiterVectors_OneBankWithHash(t *testing.T) {
	for _, a := range arbTestSpecs() {
		if a.Hash == nil {
			continue
		}
		m, ins := arbTestInputs(t, a)
		found := 0
		for _, v := range arbiterVectors(a)(ins, 3) {
			if v[1][0] == verify.Mask(a.Lanes) && arbTestOuts(m, v)["degree_o"][0] == uint64(a.Lanes) {
				found++
			}
		}
		if found == 0 {
			t.Errorf("%s: no vector with all %d lanes in one bank on distinct addresses", a.Name, a.Lanes)
		}
	}
}

func TestArbiterVectors_WrongPorts(t *testing.T) {
	a := arbTestSpecs()[0]
	_, ins := arbTestInputs(t, a)
	ins[1].Name = "mask_i"
	if vs := arbiterVectors(a)(ins, 1); vs != nil {
		t.Errorf("vectors for an input named mask_i: %d", len(vs))
	}
	_, ins = arbTestInputs(t, a)
	ins[0].Bits = ins[0].Bits[1:]
	if vs := arbiterVectors(a)(ins, 1); vs != nil {
		t.Errorf("vectors for a narrower addr_i: %d", len(vs))
	}
}

// arbTestSerial is the serializing model of a.
func arbTestSerial(t *testing.T, a *specs.BankArbiter) (*specs.BankArbiter, model.Sequential) {
	t.Helper()
	s := *a
	s.Serialize = true
	m, err := model.ForSerialBankArbiter(&s)
	if err != nil {
		t.Fatal(err)
	}
	return &s, m
}

func TestArbiterStimulus_FollowsProtocol(t *testing.T) {
	const cycles = 20_000
	for _, a0 := range arbTestSpecs() {
		a, m := arbTestSerial(t, a0)
		stim, err := arbiterStimulus(a)(m.Ports(), 1)
		if err != nil {
			t.Fatal(err)
		}
		ins, outs := verify.Record(m, stim, cycles)
		pi, po := map[string]int{}, map[string]int{}
		for _, p := range m.Ports() {
			if p.Output {
				po[p.Name] = len(po)
			} else {
				pi[p.Name] = len(pi)
			}
		}
		bit := func(v [][]uint64, i int) bool { return v[i][0]&1 == 1 }
		var (
			accepts, backToBack, stalls, midResets, empty, fullDegree int
			cfgChangesBusy, idle, maxIdle, warpGrants, maxGrants      int
			busy                                                      bool
		)
		for c := range cycles {
			in, out := ins[c], outs[c]
			rst, valid := bit(in, pi["rst"]), bit(in, pi["valid_i"])
			ready, gv, last := bit(out, po["ready_o"]), bit(out, po["grant_valid_o"]), bit(out, po["last_o"])
			if c > 0 {
				prev, pout := ins[c-1], outs[c-1]
				if bit(prev, pi["valid_i"]) && !bit(pout, po["ready_o"]) && !bit(prev, pi["rst"]) {
					// An offer not accepted is offered again, unchanged.
					for name, i := range pi {
						if name != "rst" && !slices.Equal(in[i], prev[i]) {
							t.Fatalf("%s cycle %d: the offer of cycle %d not accepted, but %s changed", a.Name, c, c-1, name)
						}
					}
				}
				if gv && len(pi) > 4 {
					for name, i := range pi {
						if strings.Contains(name, "cfg_") && !slices.Equal(in[i], prev[i]) {
							cfgChangesBusy++
							break
						}
					}
				}
			}
			if gv != busy {
				t.Fatalf("%s cycle %d: grant_valid_o %v, expected %v", a.Name, c, gv, busy)
			}
			if gv {
				warpGrants++
			}
			if valid {
				idle = 0
			} else {
				idle++
				maxIdle = max(maxIdle, idle)
			}
			switch {
			case rst:
				if gv && !last {
					midResets++
				}
				busy, warpGrants = false, 0
				continue
			case gv && last:
				maxGrants = max(maxGrants, warpGrants)
				busy, warpGrants = false, 0
			}
			switch {
			case valid && ready:
				accepts++
				busy, warpGrants = true, 0
				if gv {
					backToBack++
				}
				if in[pi["active_i"]][0] == 0 {
					empty++
				}
				if out[po["degree_o"]][0] == uint64(a.Lanes) {
					fullDegree++
				}
			case valid:
				stalls++
			}
		}
		cov := stim.Coverage()
		t.Logf("%s: %s", a.Name, cov)
		if accepts < 500 || backToBack < 50 || stalls < 500 || midResets < 5 || empty < 5 || maxIdle < 10 {
			t.Errorf("%s: %d accepts (%d back to back, %d empty), %d stalled cycles, %d resets in a grant sequence, longest gap %d",
				a.Name, accepts, backToBack, empty, stalls, midResets, maxIdle)
		}
		if addrsPerBank(a) >= a.Lanes && (fullDegree == 0 || maxGrants < a.Lanes) {
			t.Errorf("%s: %d warps of degree %d accepted, at most %d grant cycles for one", a.Name, fullDegree, a.Lanes, maxGrants)
		}
		if len(pi) > 4 && cfgChangesBusy < 20 {
			t.Errorf("%s: the configuration changed in %d grant cycles", a.Name, cfgChangesBusy)
		}
		for _, ph := range arbPhaseNames {
			if !strings.Contains(cov, ph) {
				t.Errorf("%s: phase %s never ran: %s", a.Name, ph, cov)
			}
		}
		corners := []string{arbCornerEmpty, arbCornerFirst, arbCornerMiddle, arbCornerLast, arbCornerOneAddr, arbCornerOneBank,
			arbCornerBankReuse, arbCornerAlt01, arbCornerAlt10, arbCornerStride1, arbCornerStride2, arbCornerStrideB,
			arbCornerEq1, arbCornerRandom}
		if a.LockHash != nil {
			corners = append(corners, arbCornerOneLock)
		}
		for _, c := range corners {
			if !strings.Contains(cov, c+" ") {
				t.Errorf("%s: corner %q never accepted", a.Name, c)
			}
		}
	}
}

func TestArbiterStimulus_Reproducible(t *testing.T) {
	a, m := arbTestSerial(t, arbTestSpecs()[len(arbTestSpecs())-1])
	run := func(seed uint64) string {
		m.Reset()
		stim, err := arbiterStimulus(a)(m.Ports(), seed)
		if err != nil {
			t.Fatal(err)
		}
		ins, _ := verify.Record(m, stim, 2000)
		return fmt.Sprint(ins)
	}
	if run(4) != run(4) {
		t.Error("seed 4 gives two streams")
	}
	if run(4) == run(5) {
		t.Error("seeds 4 and 5 give one stream")
	}
}

func TestArbiterStimulus_WrongPorts(t *testing.T) {
	a, m := arbTestSerial(t, arbTestSpecs()[0])
	ports := slices.Clone(m.Ports())
	ports[1].Name = "in_valid_i"
	if _, err := arbiterStimulus(a)(ports, 1); err == nil || !strings.Contains(err.Error(), "no input valid_i") {
		t.Errorf("missing valid_i: %v", err)
	}
	ports = slices.Clone(m.Ports())
	ports[2].Width++
	if _, err := arbiterStimulus(a)(ports, 1); err == nil || !strings.Contains(err.Error(), "addr_i is 65 bits wide, want 64") {
		t.Errorf("wrong addr_i width: %v", err)
	}
	ports = append(slices.Clone(m.Ports()), model.Port{Name: "extra_i", Width: 1})
	if _, err := arbiterStimulus(a)(ports, 1); err == nil {
		t.Error("an extra input accepted")
	}
}
