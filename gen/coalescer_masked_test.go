package gen

import (
	"fmt"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// muxDepth is the largest number of MUX2 gates on a path from an input to
// each net.
func muxDepth(d *netlist.Design) []int {
	depth := make([]int, d.NumNets)
	for _, g := range d.Gates {
		m := 0
		for _, n := range g.In {
			m = max(m, depth[n])
		}
		if g.Kind == netlist.MUX2 {
			m++
		}
		depth[g.Out] = m
	}
	return depth
}

// TestNextActive_Depth: the next-active-lane network is ceil(log2(lanes-1))
// multiplexer levels deep, whatever the lanes, and is reported as the
// timing path next_active.
func TestNextActive_Depth(t *testing.T) {
	for _, c := range []struct{ lanes, levels int }{{2, 0}, {3, 1}, {5, 2}, {8, 3}, {9, 3}, {32, 5}, {33, 5}, {64, 6}} {
		d, diags := MonotonicityDetector(&specs.MonotonicityDetector{Name: "d", Lanes: c.lanes, AddrBits: 4, Adder: specs.AdderCLA4, ActiveMask: true})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		depth := muxDepth(d)
		worst := -1
		for _, p := range d.Paths {
			if p.Name == "next_active" {
				for _, n := range p.To {
					worst = max(worst, depth[n])
				}
			}
		}
		if c.lanes > 2 && worst != c.levels {
			t.Errorf("%d lanes: next-active network %d MUX2 levels, want %d", c.lanes, worst, c.levels)
		}
		r, err := timing.Analyze(d, timing.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range r.Paths {
			if p.Name == "next_active" {
				found = true
				if muxes := count(p.Cells, "MUX2"); c.lanes > 2 && (muxes < 1 || p.FO4 <= 0) {
					t.Errorf("%d lanes: path next_active %v, %.2f FO4", c.lanes, p.Cells, p.FO4)
				}
			}
		}
		if !found {
			t.Errorf("%d lanes: no timing path next_active", c.lanes)
		}
	}
}

func count(s []string, x string) int {
	n := 0
	for _, e := range s {
		if e == x {
			n++
		}
	}
	return n
}

// TestMaskedCoalescer_PlainUnchanged: without the options a coalescer is
// the plain generator's, with no active_i and no request ports.
func TestMaskedCoalescer_PlainUnchanged(t *testing.T) {
	for _, st := range specs.Structures {
		c := &specs.Coalescer{Name: "c", Structure: st, Lanes: 8, AddrBits: 16, BlockBits: 5, Adder: specs.AdderCLA4}
		d, diags := Coalescer(c)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		for _, p := range d.Ports {
			switch p.Name {
			case "active_i", "req_count_o", "req_addr_o", "req_mask_o", "lane_req_o":
				t.Errorf("%s: port %s without the options", st, p.Name)
			}
		}
		c.ActiveMask, c.Requests = true, true
		d, diags = Coalescer(c)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		var names []string
		for _, p := range d.Ports {
			names = append(names, fmt.Sprintf("%s[%d]", p.Name, p.Width()))
		}
		want := "[addr_i[128] active_i[8] unique_o[8] req_count_o[4] req_addr_o[88] req_mask_o[64] lane_req_o[24]]"
		if st == specs.Speculative {
			want = "[addr_i[128] active_i[8] unique_o[8] monotonic_o[1] req_count_o[4] req_addr_o[88] req_mask_o[64] lane_req_o[24]]"
		}
		if got := fmt.Sprint(names); got != want {
			t.Errorf("%s: ports %s, want %s", st, got, want)
		}
	}
}
