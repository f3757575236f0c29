package compose

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// The lockstep checks of the composed units against their model, on the
// netlist simulator, Icarus and Verilator, are in package units, beside
// the stimulus (units/speculative_clocked_test.go).

func specUnit(name string, lanes, addrBits, blockBits int, masked, requests bool) *specs.Coalescer {
	return &specs.Coalescer{Name: name, Structure: specs.Speculative, Lanes: lanes, AddrBits: addrBits, BlockBits: blockBits,
		Adder: specs.AdderCLA4, ActiveMask: masked, Requests: requests}
}

func timingOpts(mode timing.Mode) timing.Options {
	o := timing.DefaultOptions()
	o.Mode = mode
	return o
}

func specPending(t *testing.T, c *specs.Coalescer, fastP, slowP float64) (*netlist.Design, *Timing) {
	t.Helper()
	d, info, err := SpeculativeAt(c, fastP, slowP, timingOpts(timing.Sized))
	if err != nil {
		t.Fatal(err)
	}
	return d, info
}

// TestSpeculative_Interface checks the port order, the header's
// latencies and the refusals.
func TestSpeculative_Interface(t *testing.T) {
	c := specUnit("spec_if", 4, 12, 2, true, true)
	d, info := specPending(t, c, 20, 6)
	var names []string
	for _, p := range d.Ports {
		names = append(names, p.Name)
	}
	want := "clk rst valid_i addr_i active_i ready_o unique_o monotonic_o req_count_o req_addr_o req_mask_o lane_req_o fast_o valid_o"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("ports %q, want %q", got, want)
	}
	if r := d.Port("ready_o"); r == nil || r.Bits[0] != netlist.Const1 {
		t.Error("ready_o is not the constant 1")
	}
	h := strings.Join(d.Header, "\n")
	for _, s := range []string{"Lf = " + strconv.Itoa(info.FastLatency), "Ls = " + strconv.Itoa(info.SlowLatency), "ready_o is always 1"} {
		if !strings.Contains(h, s) {
			t.Errorf("header lacks %q:\n%s", s, h)
		}
	}
	opt := retime.Options{PeriodFO4: 20, Timing: timingOpts(timing.Sized)}
	if _, _, err := Speculative(&specs.Coalescer{Name: "a", Structure: specs.AllToAll, Lanes: 4, AddrBits: 8}, opt); err == nil {
		t.Error("all_to_all: want an error")
	}
	if _, _, err := Speculative(nil, opt); err == nil {
		t.Error("nil: want an error")
	}
	opt.PeriodFO4 = 3
	if _, _, err := Speculative(specUnit("s", 4, 8, 0, false, false), opt); !errors.Is(err, retime.ErrPeriod) {
		t.Errorf("3 FO4: %v, want ErrPeriod", err)
	}
}

// TestSpeculative_SizedClocks builds 8-lane units under the sized
// model at clocks where both paths alone can be pipelined, among them
// those that failed before the paths were cut for the unit's wire and
// inputs (with requests at 12, 16 and 24 FO4).
func TestSpeculative_SizedClocks(t *testing.T) {
	for _, tc := range []struct {
		requests bool
		period   float64
	}{{true, 12}, {true, 16}, {true, 20}, {true, 24}, {true, 30}, {false, 12}, {false, 16}, {false, 20}, {false, 24}, {false, 30}} {
		c := specUnit("spec8s", 8, 32, 5, false, tc.requests)
		opt := retime.Options{PeriodFO4: tc.period, Timing: timingOpts(timing.Sized)}
		paths, err := SpeculativePaths(c, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []*netlist.Design{paths.Det, paths.Slow} {
			if _, err := retime.Pipeline(d, opt); err != nil {
				t.Fatalf("requests %v, %v FO4: %s alone: %v", tc.requests, tc.period, d.Name, err)
			}
		}
		_, info, err := Speculative(c, opt)
		if err != nil {
			t.Errorf("requests %v, %v FO4: %v", tc.requests, tc.period, err)
			continue
		}
		if info.WorstStageFO4 > tc.period {
			t.Errorf("requests %v, %v FO4: %+v", tc.requests, tc.period, info)
		}
	}
}
