package gen

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// evalAll runs every value of the n-bit inputs x and y (2n ≤ 20 bits)
// through a design whose output port 0 is computed by f, and calls check.
func evalAll(t *testing.T, n int, f func(b *netlist.Builder, x, y netlist.Bus) netlist.Bus, check func(x, y, got uint64)) {
	t.Helper()
	b := netlist.NewBuilder("t")
	x := b.Input("x_i", n, "")
	y := b.Input("y_i", n, "")
	b.Output("z_o", f(b, x, y), "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sim := netlist.NewSim(d)
	out := d.Port("z_o")
	total := uint64(1) << (2 * n)
	for base := uint64(0); base < total; base += 64 {
		xs, ys := make([]uint64, n), make([]uint64, n)
		for l := uint64(0); l < 64 && base+l < total; l++ {
			v := base + l
			for i := 0; i < n; i++ {
				xs[i] |= (v >> i & 1) << l
				ys[i] |= (v >> (n + i) & 1) << l
			}
		}
		sim.SetInput(0, xs)
		sim.SetInput(1, ys)
		sim.Eval()
		for l := uint64(0); l < 64 && base+l < total; l++ {
			v := base + l
			var got uint64
			for i, net := range out.Bits {
				got |= (sim.Net(net) >> l & 1) << i
			}
			check(v&(1<<n-1), v>>n, got)
		}
	}
}

// TestAdders_Exhaustive checks every adder architecture and the
// subtractor-based comparison on all inputs of widths 1 to 9.
func TestAdders_Exhaustive(t *testing.T) {
	for _, arch := range []specs.Adder{specs.AdderRipple, specs.AdderCLA4, specs.AdderPrefix} {
		for n := 1; n <= 9; n++ {
			evalAll(t, n, func(b *netlist.Builder, x, y netlist.Bus) netlist.Bus {
				return addWith(b, arch, x, y, netlist.Const1)
			}, func(x, y, got uint64) {
				if want := (x + y + 1) & (1<<n - 1); got != want {
					t.Fatalf("%s %d bits: %d + %d + 1 = %d, want %d", arch, n, x, y, got, want)
				}
			})
			evalAll(t, n, func(b *netlist.Builder, x, y netlist.Bus) netlist.Bus {
				return netlist.Bus{lessThan(b, arch, x, y)}
			}, func(x, y, got uint64) {
				want := uint64(0)
				if x < y {
					want = 1
				}
				if got != want {
					t.Fatalf("%s %d bits: %d < %d gave %d", arch, n, x, y, got)
				}
			})
		}
	}
}

// TestGenerators_RefuseUnknownChoices checks that a spec built in Go with
// an adder, structure or variant the loader would refuse gets a
// diagnostic, not a default in its place and not a panic.
func TestGenerators_RefuseUnknownChoices(t *testing.T) {
	cases := []struct {
		name string
		gen  func() hcl.Diagnostics
	}{
		{"speculative adder", func() hcl.Diagnostics {
			_, d := Coalescer(&specs.Coalescer{Name: "c", Structure: specs.Speculative, Lanes: 4, AddrBits: 8, Adder: "carry_save"})
			return d
		}},
		{"structure", func() hcl.Diagnostics {
			_, d := Coalescer(&specs.Coalescer{Name: "c", Structure: "all2all", Lanes: 4, AddrBits: 8})
			return d
		}},
		{"detector adder", func() hcl.Diagnostics {
			_, d := MonotonicityDetector(&specs.MonotonicityDetector{Name: "m", Lanes: 4, AddrBits: 8, Adder: ""})
			return d
		}},
		{"hash adder", func() hcl.Diagnostics {
			_, d := Hash(&specs.Hash{Name: "h", Function: specs.Add, AddrBits: 8, BankBits: 4, Adder: specs.AdderPrefix})
			return d
		}},
		{"pipeline variant", func() hcl.Diagnostics {
			_, d := ElasticPipeline(&specs.ElasticPipeline{Name: "p", MemStages: 2, WarpSize: 8, SIMDWidth: 8, ShmemPorts: 1, TagBits: 4, PipeVariant: "fast"})
			return d
		}},
	}
	for _, c := range cases {
		d := c.gen()
		if !d.HasErrors() || !strings.HasPrefix(d[0].Summary, "Unsupported ") {
			t.Errorf("%s: %v", c.name, d)
		}
	}
}
