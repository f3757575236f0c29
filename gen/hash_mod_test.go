package gen

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/model"
	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

func modSpec(addrBits, banks int) *specs.Hash {
	return &specs.Hash{Name: fmt.Sprintf("mod%d_%d", banks, addrBits), Function: specs.Mod,
		AddrBits: addrBits, Banks: banks, BankBits: bits.Len(uint(banks - 1))}
}

// checkModExhaustive runs every address of a mod unit through the gate
// netlist, 64 at a time, and compares bank_o and index_o with addr % banks
// and addr / banks.
func checkModExhaustive(t *testing.T, d *nl.Design, addrBits, banks int) {
	t.Helper()
	sim := nl.NewSim(d)
	bank, index := d.Port("bank_o"), d.Port("index_o")
	lanes := make([]uint64, addrBits)
	for base := uint64(0); base < 1<<addrBits; base += 64 {
		laneAddresses(base, addrBits, lanes)
		sim.SetInput(0, lanes)
		sim.Eval()
		for l := range min(64, 1<<addrBits) {
			addr := base + uint64(l)
			var gotBank, gotIndex uint64
			for i, n := range bank.Bits {
				gotBank |= sim.Net(n) >> l & 1 << i
			}
			for i, n := range index.Bits {
				gotIndex |= sim.Net(n) >> l & 1 << i
			}
			if gotBank != addr%uint64(banks) || gotIndex != addr/uint64(banks) {
				t.Fatalf("%d banks, %d address bits: address %d gives bank %d index %d, want %d and %d",
					banks, addrBits, addr, gotBank, gotIndex, addr%uint64(banks), addr/uint64(banks))
			}
		}
	}
}

// TestMod_EveryBankCount_Exhaustive generates mod for every bank count
// 2..1024 over 11 address bits, every odd count below 256 over 14, and a
// set of counts over 16 (each kind: powers of two, 2^m - 1, 2^n(2^m - 1),
// folded by their order, long division), and checks every address in the
// gate netlist; it also checks the ports against the behavioural model's.
// (The residue sum starts above 12 restoring stages: see
// TestMod_ResidueBeatsLongDivision and TestMod_WideAddresses.)
func TestMod_EveryBankCount_Exhaustive(t *testing.T) {
	check := func(addrBits, banks int) {
		h := modSpec(addrBits, banks)
		d, diags := Hash(h)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		m, err := model.ForHash(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Ports() {
			if q := d.Port(p.Name); q == nil || q.Width() != p.Width {
				t.Fatalf("%d banks: port %s of the model (%d bits) is %v in the design", banks, p.Name, p.Width, q)
			}
		}
		checkModExhaustive(t, d, addrBits, banks)
	}
	for banks := 2; banks <= 1024; banks++ {
		check(11, banks)
	}
	for _, banks := range []int{3, 5, 7, 12, 17, 24, 31, 37, 43, 48, 59, 63, 96, 127, 199, 255, 341, 768, 1000, 1021, 1023, 1024} {
		check(16, banks)
	}
	// Every odd count up to 255 over 14 bits: every fold width and order,
	// and long division of 6 to 8 stages.
	for banks := 3; banks < 256; banks += 2 {
		check(14, banks)
	}
}

// TestMod_WideAddresses checks 64-bit units on their corners (all ones,
// multiples of banks and their neighbours, powers of two) and random
// addresses, through the netlist simulator, lane by lane.
func TestMod_WideAddresses(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 31))
	for _, banks := range []int{3, 17, 24, 31, 59, 1000, 1021, 1023} {
		for _, addrBits := range []int{33, 64} {
			h := modSpec(addrBits, banks)
			d, diags := Hash(h)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			top := ^uint64(0) >> (64 - addrBits)
			var addrs []uint64
			for k := top / uint64(banks); k > top/uint64(banks)-3; k-- {
				addrs = append(addrs, k*uint64(banks)-1, k*uint64(banks), k*uint64(banks)+1)
			}
			for i := range addrBits {
				addrs = append(addrs, 1<<i, 1<<i-1, top^(1<<i))
			}
			for range 640 {
				addrs = append(addrs, r.Uint64()&top)
			}
			sim := nl.NewSim(d)
			bank, index := d.Port("bank_o"), d.Port("index_o")
			for lo := 0; lo < len(addrs); lo += 64 {
				chunk := addrs[lo:min(lo+64, len(addrs))]
				lanes := make([]uint64, addrBits)
				for l, a := range chunk {
					for i := range lanes {
						lanes[i] |= (a & top) >> i & 1 << l
					}
				}
				sim.SetInput(0, lanes)
				sim.Eval()
				for l, a := range chunk {
					a &= top
					var gb, gi uint64
					for i, n := range bank.Bits {
						gb |= sim.Net(n) >> l & 1 << i
					}
					for i, n := range index.Bits {
						gi |= sim.Net(n) >> l & 1 << i
					}
					if gb != a%uint64(banks) || gi != a/uint64(banks) {
						t.Fatalf("%d banks, %d bits: address %#x gives bank %d index %d, want %d and %d",
							banks, addrBits, a, gb, gi, a%uint64(banks), a/uint64(banks))
					}
				}
			}
		}
	}
}

// modDesign builds a mod unit by the given plan.
func modDesign(t *testing.T, h *specs.Hash, p modPlan) *nl.Design {
	t.Helper()
	g := &hashGen{h: h, b: nl.NewBuilder(h.Name), rtl: &nl.RTL{}, m: h.BankBits}
	g.addr = g.b.Input("addr_i", h.AddrBits, "")
	g.addE = nl.Ref("addr_i", h.AddrBits)
	bank, _ := g.modWith(p)
	g.b.Output("bank_o", bank, "")
	g.b.Output("index_o", g.index, "")
	d, err := g.b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMod_FoldingBeatsLongDivision: folding is the faster circuit. Both
// designs are built for 3, 24 and 31 banks (folding by 2^m - 1) and 17
// (folding by 255 = 17 * 15, then the residue's thresholds) over 16
// address bits, checked on every address, and timed: folding must be at
// least 1.5 times faster. For 31 banks it is also smaller; for 3 (and 24)
// the restoring stages are 3-bit and tiny, and folding's quotient, a
// carry-save sum of the seven copies x >> 2, x >> 4, ..., costs more
// area: the price of its logarithmic depth. (docs/hash-functions.md
// quotes the figures this logs.)
func TestMod_FoldingBeatsLongDivision(t *testing.T) {
	for _, banks := range []int{3, 17, 24, 31} {
		h := modSpec(16, banks)
		fold := newModPlan(16, banks)
		if fold.m == 0 {
			t.Fatalf("%d banks: no folding plan", banks)
		}
		div := fold
		div.m = 0
		var res [2]*timing.Result
		for i, p := range []modPlan{fold, div} {
			d := modDesign(t, h, p)
			checkModExhaustive(t, d, 16, banks)
			r, err := timing.Analyze(d, timing.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			res[i] = r
		}
		t.Logf("%4d banks, 16 bits: folding %.1f FO4 %3d levels %6.1f GE %4d gates; long division %.1f FO4 %3d levels %6.1f GE %4d gates",
			banks, res[0].FO4, res[0].Depth, res[0].AreaGE, res[0].Gates, res[1].FO4, res[1].Depth, res[1].AreaGE, res[1].Gates)
		if 1.5*res[0].FO4 > res[1].FO4 {
			t.Errorf("%d banks: folding (%.1f FO4) is not 1.5 times faster than long division (%.1f FO4)", banks, res[0].FO4, res[1].FO4)
		}
		if banks == 31 && res[0].AreaGE >= res[1].AreaGE {
			t.Errorf("31 banks: folding (%.1f GE) is not smaller than long division (%.1f GE)", res[0].AreaGE, res[1].AreaGE)
		}
	}
}

// TestMod_ResidueBeatsLongDivision: for counts that fold by no 2^m - 1
// of order <= 16 (37 and 59, orders 36 and 58), the residue sum with the
// inverse-multiply quotient is checked on every 20-bit address and must
// be at least 1.5 times faster than the 15 serial restoring stages.
func TestMod_ResidueBeatsLongDivision(t *testing.T) {
	for _, banks := range []int{37, 59} {
		h := modSpec(20, banks)
		res := newModPlan(20, banks)
		if !res.residue {
			t.Fatalf("%d banks: no residue plan: %+v", banks, res)
		}
		div := res
		div.residue = false
		var r [2]*timing.Result
		for i, p := range []modPlan{res, div} {
			d := modDesign(t, h, p)
			checkModExhaustive(t, d, 20, banks)
			var err error
			if r[i], err = timing.Analyze(d, timing.DefaultOptions()); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%4d banks, 20 bits: residue sum %.1f FO4 %3d levels %6.1f GE %4d gates; long division %.1f FO4 %3d levels %6.1f GE %4d gates",
			banks, r[0].FO4, r[0].Depth, r[0].AreaGE, r[0].Gates, r[1].FO4, r[1].Depth, r[1].AreaGE, r[1].Gates)
		if 1.5*r[0].FO4 > r[1].FO4 {
			t.Errorf("%d banks: residue sum (%.1f FO4) is not 1.5 times faster than long division (%.1f FO4)", banks, r[0].FO4, r[1].FO4)
		}
	}
}

// TestMod_RefusesBadSizes: sizes the loader refuses are errors of the
// generator too, never a panic.
func TestMod_RefusesBadSizes(t *testing.T) {
	for _, h := range []*specs.Hash{
		{Name: "m", Function: specs.Mod, AddrBits: 8, Banks: 0},
		{Name: "m", Function: specs.Mod, AddrBits: 8, Banks: 1, BankBits: 0},
		{Name: "m", Function: specs.Mod, AddrBits: 3, Banks: 9, BankBits: 4},
		{Name: "m", Function: specs.Mod, AddrBits: 65, Banks: 3, BankBits: 2},
		{Name: "m", Function: specs.Mod, AddrBits: 8, Banks: 2048, BankBits: 11},
		{Name: "m", Function: specs.Mod, AddrBits: 8, Banks: 5, BankBits: 2},
	} {
		if _, diags := Hash(h); !diags.HasErrors() {
			t.Errorf("%+v: no error", h)
		}
	}
}
