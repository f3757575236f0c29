package gen

import (
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

func analyze(t *testing.T, h *specs.Hash) *timing.Result {
	t.Helper()
	d, diags := Hash(h)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r, err := timing.Analyze(d, timing.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAtomicHashes_GateDepth follows 002_*: the fixed XOR hash is one XOR
// level; the 5-bit ripple ADD hash costs 1 + 4×2 = 9 gate delays.
func TestAtomicHashes_GateDepth(t *testing.T) {
	xor := analyze(t, &specs.Hash{Name: "x", Function: specs.FixedXor, AddrBits: 14, BankBits: 5})
	add := analyze(t, &specs.Hash{Name: "a", Function: specs.Add, AddrBits: 14, BankBits: 5, Adder: specs.AdderRipple})
	cla := analyze(t, &specs.Hash{Name: "c", Function: specs.Add, AddrBits: 14, BankBits: 5, Adder: specs.AdderCLA})
	if xor.Depth != 1 || xor.GatesByKind["XOR2"] != 5 || xor.Gates != 5 {
		t.Errorf("fixed_xor: depth %d, gates %v; want one level of 5 XOR2", xor.Depth, xor.GatesByKind)
	}
	if add.Depth != 9 {
		t.Errorf("5-bit ripple add: depth %d, want 9", add.Depth)
	}
	if add.FO4 < 3*xor.FO4 {
		t.Errorf("ripple add %.2f FO4 is not several times fixed_xor's %.2f", add.FO4, xor.FO4)
	}
	if cla.Depth >= add.Depth {
		t.Errorf("cla depth %d not below ripple's %d", cla.Depth, add.Depth)
	}
}

// TestConfigurableHashes_AreaOrder: configurable hardware costs more than a
// constant configuration, in the order of 000_* Table 4.
func TestConfigurableHashes_AreaOrder(t *testing.T) {
	order := []specs.HashFunction{specs.BitvectorPerm, specs.BitvectorXor, specs.BitwisePerm, specs.BitwiseXor}
	constant := map[specs.HashFunction]*specs.Hash{
		specs.BitvectorPerm: {K: 3},
		specs.BitvectorXor:  {K1: 2, K2: 8, Mask: 7},
		specs.BitwisePerm:   {Bits: [][]int{{0}, {4}, {1}, {2}, {3}}},
		specs.BitwiseXor:    {Bits: [][]int{{0}, {4}, {1, 5}, {2, 6}, {3, 7}}},
	}
	prev := 0.0
	for _, f := range order {
		cfg := analyze(t, &specs.Hash{Name: "c", Function: f, AddrBits: 14, BankBits: 5, Configurable: true})
		c := constant[f]
		c.Name, c.Function, c.AddrBits, c.BankBits = "k", f, 14, 5
		fixed := analyze(t, c)
		if cfg.AreaGE <= fixed.AreaGE || cfg.FO4 <= fixed.FO4 {
			t.Errorf("%s: configurable %.1f GE %.2f FO4 not above constant %.1f GE %.2f FO4", f, cfg.AreaGE, cfg.FO4, fixed.AreaGE, fixed.FO4)
		}
		if cfg.AreaGE <= prev {
			t.Errorf("%s: %.1f GE not above the previous class's %.1f GE", f, cfg.AreaGE, prev)
		}
		prev = cfg.AreaGE
	}
}

// TestShiftRight_PrunesLowOutputs: reading only the low m bits of a 14-bit
// shifter keeps far fewer than the 4×14 muxes of the full shifter.
func TestShiftRight_PrunesLowOutputs(t *testing.T) {
	b := netlist.NewBuilder("s")
	in := b.Input("a_i", 14, "")
	amt := b.Input("k_i", 4, "")
	b.Output("y_o", shiftRight(b, in, amt)[:5], "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Gates); n > 40 {
		t.Errorf("%d gates for a 14-to-5 shifter, want at most 40", n)
	}
}

func TestSelWidth(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 14: 4, 16: 4, 17: 5, 64: 6} {
		if got := SelWidth(n); got != want {
			t.Errorf("SelWidth(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestRAP_InverseRecoversAddress sweeps every address of a two-matrix RAP
// through the gate netlist and back through the inverse mapping
// j = (bank - r_i) mod w: addr_o must be a permutation of the addresses.
func TestRAP_InverseRecoversAddress(t *testing.T) {
	perm := []int{5, 3, 7, 0, 6, 2, 1, 4}
	h := &specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 7, BankBits: 3, W: 8, Permutation: perm, Adder: specs.AdderCLA}
	d, diags := Hash(h)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	sim := netlist.NewSim(d)
	addrOut := d.Port("addr_o")
	seen := map[int]bool{}
	for base := 0; base < 128; base += 64 {
		lanes := make([]uint64, 7)
		for l := 0; l < 64; l++ {
			for bit := range lanes {
				lanes[bit] |= uint64((base+l)>>bit&1) << l
			}
		}
		sim.SetInput(0, lanes)
		sim.Eval()
		for l := 0; l < 64; l++ {
			out := 0
			for bit, n := range addrOut.Bits {
				out |= int(sim.Net(n)>>l&1) << bit
			}
			if seen[out] {
				t.Fatalf("addr_o %d produced twice", out)
			}
			seen[out] = true
			row, bank := out>>3&7, out&7
			if back := out&^7 | (bank-perm[row]+8)%8; back != base+l {
				t.Fatalf("address %d maps to %d, whose inverse is %d", base+l, out, back)
			}
		}
	}
}

// TestHash_RAPSchemeRefusesBadTables: a spec built in code with tables the
// loader would refuse gets a diagnostic, not a panic.
func TestHash_RAPSchemeRefusesBadTables(t *testing.T) {
	bad := []*specs.Hash{
		{Name: "a", Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, BankBits: 2, W: 4, Adder: specs.AdderRipple},
		{Name: "b", Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, BankBits: 2, W: 4, Adder: specs.AdderRipple,
			Permutations: [][]int{{0, 1, 2, 3}, {0, 1, 2}, {0, 1, 2, 3}}},
		{Name: "c", Function: specs.RAP, Scheme: specs.RAPR1P, AddrBits: 6, BankBits: 2, W: 4, Adder: specs.AdderRipple, Permutation: []int{0, 1, 2, 3}},
		{Name: "d", Function: specs.RAP, Scheme: specs.RAPRAS, AddrBits: 8, BankBits: 2, W: 4, Adder: specs.AdderRipple, Shifts: []int{0, 1, 2}},
		{Name: "e", Function: specs.RAP, Scheme: specs.RAPRAS, AddrBits: 8, BankBits: 2, W: 4, Adder: specs.AdderRipple, Shifts: []int{0, 9}},
		{Name: "f", Function: specs.RAP, Scheme: "9P", AddrBits: 8, BankBits: 2, W: 4, Adder: specs.AdderRipple},
	}
	for _, h := range bad {
		if _, diags := Hash(h); !diags.HasErrors() || diags[0].Summary != "Invalid rap scheme" {
			t.Errorf("%s: diagnostics %v, want Invalid rap scheme", h.Name, diags)
		}
	}
}
