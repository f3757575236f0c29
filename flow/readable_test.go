package flow

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
)

// TestReadable_Arbiter32At500MHzInSky130: the 32-lane arbiter of 002_*
// (a bank hash and a lock hash per lane) at 500 MHz in sky130, its
// registers placed by the library's model, has a readable module by
// stage, every hash instance kept, registers named after its signals, no
// line over the limit, at most retime.ExtraRegisters more registers than
// the fewest found (which the header states), within 3x the lines and
// bytes of its combinational RTL (the adders its cuts pass through,
// alike in every lane, written once as functions), and lint-clean under
// Verilator and Icarus. Its proof RTL = gates takes minutes (1 min 33 s
// on the 2-core VM); `lsugen verify formal --clock 500MHz --liberty ...`
// runs it, and the suite proves smaller pipelines with functions
// (golden's arbiter_8_c10 and monotonic_8_c16u).
func TestReadable_Arbiter32At500MHzInSky130(t *testing.T) {
	if testing.Short() {
		t.Skip("pipelines a 100,000-gate unit")
	}
	lib := loadSky130(t)
	comb, err := Load([]string{"../specs/locks_002.hcl"}, Options{Gates: DefaultGateBudget, Unit: "fermi_arbiter"})
	if err != nil {
		t.Fatal(err)
	}
	piped, err := Load([]string{"../specs/locks_002.hcl"}, Options{Gates: DefaultGateBudget, Unit: "fermi_arbiter",
		Library: lib, Clock: specs.Clocking{PeriodPS: 2000, ModeDefaulted: true}})
	if err != nil {
		t.Fatal(err)
	}
	c, p := comb.Units[0].Design, piped.Units[0].Design
	if p.Pipeline == nil || p.Pipeline.Latency < 2 {
		t.Fatalf("pipeline %+v, want at least two stages", p.Pipeline)
	}
	var cv, pv bytes.Buffer
	info := rtl.Info{Version: "lsugen test"}
	if err := rtl.WriteRTL(&cv, c, info); err != nil {
		t.Fatal(err)
	}
	if err := rtl.WriteRTL(&pv, p, info); err != nil {
		t.Fatal(err)
	}
	flops := 0
	for _, g := range p.Gates {
		if g.Kind == netlist.DFF {
			flops++
		}
	}
	lines := func(b *bytes.Buffer) int { return bytes.Count(b.Bytes(), []byte("\n")) }
	t.Logf("latency %d, %d registers; readable module %d lines (combinational %d)", p.Pipeline.Latency, flops, lines(&pv), lines(&cv))
	text := pv.String()
	if strings.Contains(text, "stage1_q") || !strings.Contains(text, "_q1 <= ") {
		t.Errorf("the readable module is a gate list, not registers named after its signals")
	}
	if lines(&pv) > 3*lines(&cv) || pv.Len() > 3*cv.Len() {
		t.Errorf("readable module %d lines, %d bytes: over 3x the combinational %d, %d", lines(&pv), pv.Len(), lines(&cv), cv.Len())
	}
	if !strings.Contains(text, "function ") {
		t.Errorf("no function: the adders cut alike in every lane are written gate by gate each")
	}
	if len(p.Instances) != 64 {
		t.Errorf("%d instances, want 64 (a bank and a lock hash per lane)", len(p.Instances))
	}
	for _, inst := range c.Instances {
		if !strings.Contains(text, "    "+inst.Design.Name+" "+inst.Name+" (") {
			t.Errorf("the readable module lost instance %s of %s", inst.Name, inst.Design.Name)
		}
	}
	for i, l := range strings.Split(text, "\n") {
		if len(l) > rtl.MaxLineLength {
			t.Errorf("line %d: %d characters", i+1, len(l))
			break
		}
	}
	// Where the placement takes more registers than the fewest found, the
	// header says how many, within the allowance.
	stated := false
	for _, h := range p.Header {
		var n, pct, fewest int
		if _, err := fmt.Sscanf(h, "Registers: %d, %d %% more than the fewest found (%d)", &n, &pct, &fewest); err == nil {
			stated = true
			if n != flops || float64(n) > float64(fewest)*(1+retime.ExtraRegisters) {
				t.Errorf("header %q: the design has %d registers; want at most %.0f%% more than %d", h, flops, 100*retime.ExtraRegisters, fewest)
			}
		}
	}
	t.Logf("register allowance stated in the header: %v", stated)
	lintAll(t, p)
}

// lintAll writes d's readable module and its submodules' and runs
// Verilator and Icarus on them with every warning on: they must print
// nothing.
func lintAll(t *testing.T, d *netlist.Design) {
	t.Helper()
	srcs, _, err := rtl.WriteDir(t.TempDir(), d, rtl.Info{Version: "lsugen test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range [][]string{{"verilator", "--lint-only", "-Wall"}, {"iverilog", "-g2005", "-Wall", "-o", os.DevNull}} {
		tl, err := toolchain.Find(tool[0])
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tl.Path, append(tool[1:], srcs...)...).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: %v\n%s", tool[0], err, out)
		}
	}
}
