package gen

import (
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

func loadUnits(t *testing.T, path string) map[string]specs.Unit {
	t.Helper()
	f, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	units := map[string]specs.Unit{}
	for _, u := range f.Units {
		units[u.UnitName()] = u
	}
	return units
}

// TestWarpReadyMask_Storage checks the history cache's storage against
// the paper's 704 bytes, and that the storage groups account for every
// flip-flop of the netlist.
func TestWarpReadyMask_Storage(t *testing.T) {
	for name, u := range loadUnits(t, "../specs/pipeline.hcl") {
		w, ok := u.(*specs.WarpReadyMask)
		if !ok {
			continue
		}
		d, diags := WarpReadyMask(w)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		sum := 0
		for _, s := range d.Storage {
			sum += s.Bits
		}
		if _, ok := u.(*specs.WarpReadyMask); ok && sum != d.Stats()[netlist.DFF] {
			t.Errorf("%s: storage groups hold %d bits, the netlist %d DFFs", name, sum, d.Stats()[netlist.DFF])
		}
		if name == "wrm_paper" {
			if d.Storage[0].Bits != 704*8 {
				t.Errorf("wrm_paper: %s = %d bits, want 704 bytes", d.Storage[0].Name, d.Storage[0].Bits)
			}
		}
	}
}

// TestElasticPipeline_Registers counts the pipeline latches Table 1
// describes: M MEM latches and M NONMEM entries and N PREMEM entries,
// each a valid bit and a tag (MEM0 and PREMEM entries also an
// extra-cycle count).
func TestElasticPipeline_Registers(t *testing.T) {
	units := loadUnits(t, "../specs/pipeline.hcl")
	cases := []struct {
		name string
		dffs int
	}{
		// M = 4, tags 10 bits, extra count 4 bits (degree 4 bits, 1 port).
		{"ep_unified_m4", 4*11 + 4},
		{"ep_split_m4", 4*11 + 4 + 4*11},
		{"ep_elastic_m4", 4*11 + 4 + 4*11 + 3*(11+4)},
		// M = 2, N = 1, tags 6 bits, degree 4 bits, 2 ports: extra 3 bits.
		{"ep_elastic_fig6", 2*7 + 3 + 2*7 + 1*(7+3)},
	}
	for _, c := range cases {
		d, diags := ElasticPipeline(units[c.name].(*specs.ElasticPipeline))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if got := d.Stats()[netlist.DFF]; got != c.dffs {
			t.Errorf("%s: %d DFFs, want %d", c.name, got, c.dffs)
		}
	}
}
