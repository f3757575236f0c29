package sta

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/toolchain"
)

// tinyLib is timing/liberty's test library: among its cells an lpflow
// inverter for the don't-use list to cut, a buffer and a flip-flop.
func tinyLib(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "timing", "liberty", "testdata", "tiny.lib"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPrepareLibrary(t *testing.T) {
	dir := t.TempDir()
	// Gzipped, as sky130's is.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(tinyLib(t)))
	zw.Close()
	src := filepath.Join(dir, "tiny.lib.gz")
	if err := os.WriteFile(src, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := PrepareLibrary(src, filepath.Join(dir, "work"), []string{"*lpflow_*"})
	if err != nil {
		t.Fatal(err)
	}
	if lib.Name != "tiny" || lib.TimeUnitPS != 1 || lib.CapUnitFF != 1 {
		t.Errorf("name %q, time unit %v ps, cap unit %v fF", lib.Name, lib.TimeUnitPS, lib.CapUnitFF)
	}
	if len(lib.Removed) != 1 || lib.Removed[0] != "tiny_lpflow_inv_0" {
		t.Errorf("removed %v", lib.Removed)
	}
	inv, err := lib.SmallestInverter()
	if err != nil {
		t.Fatal(err)
	}
	// tiny_lpflow_inv_0 is smaller but removed; tiny_inv_1 is the
	// smallest left, with the larger of its rise and fall capacitances.
	if inv.Name != "tiny_inv_1" || inv.Inputs[0].Cap != 1.3 || inv.Outputs[0].Name != "Y" {
		t.Errorf("smallest inverter %+v", inv)
	}
	if !lib.Cells["tiny_dff"].Sequential || lib.Cells["tiny_buf_1"].Outputs[0].Function != "A" {
		t.Error("flip-flop or buffer misread")
	}
	if _, err := lib.Driver("tiny_lpflow_inv_0"); err == nil || !strings.Contains(err.Error(), "don't-use") {
		t.Errorf("removed driver: err = %v", err)
	}
	if _, err := lib.Driver("tiny_dff"); err == nil {
		t.Error("a flip-flop accepted as the driver")
	}
	if d, err := lib.Driver("tiny_buf_1"); err != nil || d.Name != "tiny_buf_1" {
		t.Errorf("buffer driver: %v, %v", d, err)
	}
	out, err := os.ReadFile(lib.Path)
	if err != nil {
		t.Fatal(err)
	}
	// The removed cell goes with its whole lines; the rest is byte for
	// byte the source.
	want := strings.Replace(tinyLib(t), `  cell ("tiny_lpflow_inv_0") {
    area : 0.5;
    pin ("A") { direction : input; capacitance : 0.5; }
    pin ("Y") { direction : output; function : "!A"; }
  }
`, "", 1)
	if string(out) != want {
		t.Errorf("prepared liberty:\n%s\nwant:\n%s", out, want)
	}
}

// A path report as OpenSTA 2.0.17 prints it with -fields {input_pins}.
const pathReport = `Startpoint: _662_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: y (output port clocked by clk)

    Delay      Time   Description
-------------------------------------------------------------
   0.0000    0.0000   clock clk (rise edge)
   0.0000    0.0000 ^ _662_/CLK (tiny_dff)
   0.3736    0.3736 ^ _662_/Q (tiny_dff)
   0.0029    0.3764 ^ _270_/A (tiny_inv_1)
   0.6073    0.9838 v _270_/Y (tiny_inv_1)
   0.0018    0.9856 v _312_/A (tiny_buf_1)
   0.6687    1.6543 v _312_/X (tiny_buf_1)
   0.0006    1.6549 v y (out)
             1.6549   data arrival time
 100.0000  100.0000   clock clk (rise edge)
`

func TestPathParsing(t *testing.T) {
	lib, err := liberty.ParseLibrary([]byte(tinyLib(t)))
	if err != nil {
		t.Fatal(err)
	}
	f := &Flow{Lib: &Library{Library: lib}}
	if d := f.depth(pathReport); d != 2 {
		t.Errorf("depth %d, want 2 (the flip-flop is not a level)", d)
	}
	m := pathLines(pathReport)
	if m["_270_/A"] != 0.3764 || m["_312_/A"] != 0.9856 || m["y"] != 1.6549 {
		t.Errorf("arrivals %v", m)
	}
}

// sky130 is the liberty the project's checks use; it lives beside the
// repository, never in it.
var sky130 = filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz")

// needFlow skips the test unless Yosys, OpenSTA and the sky130 liberty
// are all here.
func needFlow(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("synthesis and timing runs: not in -short")
	}
	for _, tool := range []string{"yosys", "sta"} {
		if _, err := toolchain.Find(tool); err != nil {
			t.Skipf("%v", err)
		}
	}
	lib, err := filepath.Abs(sky130)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	return lib
}

// unitsFrom are the named example units of a spec file (flow.ExampleUnit),
// shared: read, never modified.
func unitsFrom(t *testing.T, file string, names ...string) map[string]specUnit {
	t.Helper()
	out := map[string]specUnit{}
	for _, n := range names {
		u, err := flow.ExampleUnit(n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u.Source(), "specs/"+file+":") {
			t.Fatalf("unit %s is declared at %s, not in specs/%s", n, u.Source(), file)
		}
		out[n] = specUnit{u.Spec, u.Design}
	}
	return out
}

type specUnit struct {
	spec   specs.Unit
	design *netlist.Design
}

// TestSky130 runs the flow on four small units: a fixed XOR hash, an
// 8-lane monotonicity detector, a sequential elastic pipeline and a hash
// with pass-through bits.
func TestSky130(t *testing.T) {
	lib := needFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if f.Driver.Name != "sky130_fd_sc_hd__inv_1" {
		t.Errorf("driver %s, want sky130_fd_sc_hd__inv_1", f.Driver.Name)
	}
	for _, c := range []string{"sky130_fd_sc_hd__lpflow_isobufsrc_1", "sky130_fd_sc_hd__clkinv_1", "sky130_fd_sc_hd__probe_p_8"} {
		if _, ok := f.Lib.Cells[c]; ok {
			t.Errorf("%s was not removed", c)
		}
	}
	fo4, err := f.MeasureFO4(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Measured: 95.6 ps (rising output 106.8, falling 84.5) for a stage
	// of an FO4 chain of sky130_fd_sc_hd__inv_1 at tt, 25 °C, 1.8 V with
	// the library's "Small" wire load. The band is wide enough for other OpenSTA
	// versions, narrow enough to catch a unit error (ns for ps) or a
	// stage measured with the wrong load.
	t.Logf("FO4 %.1f ps (rise %.1f, fall %.1f)", fo4.PS, fo4.RisePS, fo4.FallPS)
	if fo4.PS < 50 || fo4.PS > 150 {
		t.Errorf("FO4 %.1f ps outside 50..150 ps", fo4.PS)
	}

	rep := NewReport(f, fo4, DefaultBandPct)
	ch, err := liberty.Characterize(f.Lib.Library, liberty.Options{DontUse: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	rep.Model = NewModelTech(ch)
	if rep.Model.NAND2Area, err = NAND2Area(ch, f.Lib.Library); err != nil {
		t.Fatal(err)
	}
	// The library's FO4 against OpenSTA's (86.1 against 95.6 ps here;
	// TestFO4_CharacterizedMatchesOpenSTA holds it to its tolerance).
	if math.Abs(ch.FO4PS-fo4.PS) > 0.15*fo4.PS {
		t.Errorf("model FO4 %.1f ps, OpenSTA's %.1f ps", ch.FO4PS, fo4.PS)
	}
	libOpt := timing.OptionsFor(ch.Tech)
	libOpt.OutputLoad = f.OutputLoad * f.Lib.CapUnitFF / ch.RefCapFF
	units := unitsFrom(t, "hash_atomics.hcl", "atomic_xor")
	for k, v := range unitsFrom(t, "coalescer_small.hcl", "monotonic_8_cla4") {
		units[k] = v
	}
	for k, v := range unitsFrom(t, "pipeline.hcl", "ep_unified_m4") {
		units[k] = v
	}
	// Two of transpose_bvxor's bank bits are address bits passed through:
	// assignments OpenSTA must read.
	for k, v := range unitsFrom(t, "hash_table5.hcl", "transpose_bvxor") {
		units[k] = v
	}
	for _, name := range []string{"atomic_xor", "monotonic_8_cla4", "ep_unified_m4", "transpose_bvxor"} {
		u := units[name]
		start := time.Now()
		res, err := f.Run(ctx, u.design, rtl.Info{Version: "test", Source: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Result{res.Plain, res.TimingDriven} {
			if !(r.DelayPS > 0) || r.Cells == 0 || !(r.Area > 0) || r.Depth < 1 || r.Endpoint == "" {
				t.Errorf("%s: %+v", name, r.Timing)
			}
		}
		// The timing-driven flow may lose a little to the plain one on a
		// unit with nothing to gain, never much.
		if res.TimingDriven.DelayPS > 1.05*res.Plain.DelayPS {
			t.Errorf("%s: timing-driven %.1f ps, plain %.1f ps", name, res.TimingDriven.DelayPS, res.Plain.DelayPS)
		}
		if (res.Clock != "") != (name == "ep_unified_m4") {
			t.Errorf("%s: clock %q", name, res.Clock)
		}
		var lib, textbook [2]*timing.Result
		for i, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
			opt := timing.DefaultOptions()
			opt.Mode = mode
			if textbook[i], err = timing.Analyze(u.design, opt); err != nil {
				t.Fatal(err)
			}
			libOpt.Mode = mode
			if lib[i], err = timing.Analyze(u.design, libOpt); err != nil {
				t.Fatal(err)
			}
		}
		mapped, err := f.RunMapped(ctx, u.design, ch)
		if err != nil {
			t.Fatal(err)
		}
		area, cells, err := MappedArea(u.design, ch, f.Lib.Library)
		if err != nil {
			t.Fatal(err)
		}
		ur := rep.Add(res, mapped, area, cells, u.spec.UnitKind(), u.spec.Variant(), len(u.design.Gates), lib, textbook, time.Since(start).Seconds())
		if ur.Lib.SizedErrorPct == nil || ur.Lib.UnsizedErrorPct == nil || ur.Textbook.SizedErrorPct == nil {
			t.Fatalf("%s: no error figure", name)
		}
		// The project's goal, met by these four units (measured with
		// transitions propagated: -6.9%, +4.3%, -6.4%, -6.9%): the
		// characterized sized model within ±25% of the timing-driven
		// flow.
		// The model's arithmetic on its own netlist in sky130 cells
		// (measured: +0.3%, -6.2%, -1.0%, +0.3%; reading every table at
		// one transition it was +4.4%, -5.6%, -9.9%, +4.4%): within 10%
		// of OpenSTA.
		if e := *ur.Lib.MappedErrorPct; math.Abs(e) > 10 {
			t.Errorf("%s: unsized model %.2f FO4, OpenSTA on the same gates %.2f FO4: %+.1f%%", name, ur.Lib.UnsizedFO4, ur.Mapped.FO4, e)
		}
		if !ur.WithinBand {
			t.Errorf("%s: sized model %.2f FO4, timing-driven flow %.2f FO4: %+.1f%%, outside ±%g%%",
				name, ur.Lib.SizedFO4, ur.TimingDriven.FO4, *ur.Lib.SizedErrorPct, rep.BandPct)
		}
		t.Logf("%s: mapped %.1f ps, plain %.1f ps (%.2f FO4), timing-driven %.1f ps (%.2f FO4); model (lib) %.2f / %.2f FO4, errors: mapped %+.1f%%, sized %+.1f%%, %.1fs",
			name, ur.Mapped.DelayPS, ur.Plain.DelayPS, ur.Plain.FO4, ur.TimingDriven.DelayPS, ur.TimingDriven.FO4, ur.Lib.UnsizedFO4, ur.Lib.SizedFO4, *ur.Lib.MappedErrorPct, *ur.Lib.SizedErrorPct, ur.Seconds)
	}
	// The sequential unit's path starts or ends at a flip-flop.
	if s := rep.Units[2]; !s.Sequential {
		t.Errorf("ep_unified_m4 not reported sequential")
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "monotonic_8_cla4") || !strings.Contains(text.String(), "sized model (lib) within ±25%") {
		t.Errorf("text report:\n%s", text.String())
	}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"library", "driver", "fo4", "units", "outside_band", "band_pct", "source"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON has no %q", k)
		}
	}
	unit := doc["units"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "plain", "timing_driven", "lib", "textbook", "within_band", "target_ps"} {
		if _, ok := unit[k]; !ok {
			t.Errorf("unit JSON has no %q", k)
		}
	}
}

// TestSky130Gates synthesises lsugen's gate netlist instead of the RTL.
func TestSky130Gates(t *testing.T) {
	lib := needFlow(t)
	f, err := New(Config{Liberty: lib, WorkDir: t.TempDir(), Source: SourceGates})
	if err != nil {
		t.Fatal(err)
	}
	u := unitsFrom(t, "hash_atomics.hcl", "atomic_add_ripple")["atomic_add_ripple"]
	res, err := f.Run(context.Background(), u.design, rtl.Info{Version: "test", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.Plain.DelayPS > 0) || !(res.TimingDriven.DelayPS > 0) || res.Plain.Top != "atomic_add_ripple_gates" {
		t.Errorf("plain %+v, timing-driven %+v", res.Plain, res.TimingDriven)
	}
	if _, err := New(Config{Liberty: lib, WorkDir: t.TempDir(), Source: "netlist"}); err == nil {
		t.Error("unknown source accepted")
	}
}

// TestMappedVerilog_Instances: every gate becomes its kind's cell, a
// composite kind its core and the inverter through a wire of its own, a
// flip-flop gets the clock; outputs are assigned from their nets.
func TestMappedVerilog_Instances(t *testing.T) {
	ch := &liberty.Characterization{Library: "fake"}
	for k := range netlist.Kind(netlist.NumKinds) {
		kf := liberty.KindFit{Kind: k.String(), Core: "c_" + strings.ToLower(k.String()), Output: "Y"}
		for i := range k.Arity() {
			kf.Pins = append(kf.Pins, liberty.PinFit{Pin: fmt.Sprintf("P%d", i)})
		}
		if k == netlist.OR2 {
			kf.Core, kf.Inverter, kf.InvIn, kf.InvOut = "c_nor2", "c_inv", "A", "Z"
		}
		if k == netlist.DFF {
			kf.Output, kf.Clock = "Q", "CK"
		}
		ch.Kinds = append(ch.Kinds, kf)
	}
	b := netlist.NewBuilder("m")
	b.Clock("clk", "clock")
	a := b.Input("a_i", 2, "")
	q := b.Reg("q", 1)
	b.Next(q, netlist.Bus{b.Or(a[0], q[0])})
	b.Output("y_o", netlist.Bus{b.Xor(a[1], q[0]), a[0]}, "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	top, text, err := MappedVerilog(d, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"module m_mapped (clk, a_i, y_o);",
		"c_dff g0 (.CK(clk), .P0(",
		"c_nor2 g1 (.P0(a_i[0]), .P1(",
		"c_inv g1_inv (.A(g1_core), .Z(",
		"c_xor2 g2 (.P0(a_i[1]), .P1(",
		"assign y_o[1] = a_i[0];",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if top != "m_mapped" {
		t.Errorf("top %q", top)
	}
	if _, _, err := MappedVerilog(d, &liberty.Characterization{}); err == nil {
		t.Error("an empty characterization accepted")
	}
}

// TestSTACache: a second MeasureFO4 in another work directory takes
// OpenSTA's output from the run cache (the tool is not run: its path is
// made wrong) and measures the same; another library text misses; a
// script that reads a file the key does not cover is not cached.
func TestSTACache(t *testing.T) {
	lib := needFlow(t)
	t.Setenv(toolchain.CacheDirEnv, t.TempDir())
	measure := func(f *Flow) FO4 {
		t.Helper()
		fo4, err := f.MeasureFO4(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return fo4
	}
	first, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := measure(first)
	second, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	real := second.STA.Path
	second.STA = &toolchain.Tool{Name: "sta", Path: "/nonexistent/sta", Version: second.STA.Version}
	if got := measure(second); got != want {
		t.Errorf("from the cache: %+v, want %+v", got, want)
	}
	// A damaged entry is a miss, removed: truncated, the broken tool
	// then runs and fails.
	entries, _ := filepath.Glob(filepath.Join(os.Getenv(toolchain.CacheDirEnv), staCacheSubdir, "*"))
	if len(entries) != 1 {
		t.Fatalf("%d cache entries, want 1 (the FO4 chain)", len(entries))
	}
	b, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries[0], b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := second.MeasureFO4(context.Background()); err == nil {
		t.Error("a damaged entry answered the run")
	}
	if _, err := os.Stat(entries[0]); err == nil {
		t.Error("the damaged entry was not removed")
	}

	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := &toolchain.Tool{Name: "sta", Path: real, Version: second.STA.Version}
	write("a.lib", "library (a) {}\n")
	write("n.v", "module n; endmodule\n")
	write("s.tcl", "read_liberty {a.lib}\nread_verilog n.v\nexit\n")
	k1 := staKey(tool, dir, "s.tcl")
	write("a.lib", "library (b) {}\n")
	k2 := staKey(tool, dir, "s.tcl")
	other := t.TempDir()
	for _, name := range []string{"a.lib", "n.v", "s.tcl"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if err := os.WriteFile(filepath.Join(other, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k3 := staKey(tool, other, "s.tcl")
	if k1 == "" || k1 == k2 || k2 != k3 {
		t.Errorf("keys %q, %q (library changed), %q (the same files elsewhere)", k1, k2, k3)
	}
	for _, script := range []string{"read_sdc x.sdc\n", "source x.tcl\n", "read_verilog {my file.v}\n", "read_verilog missing.v\n"} {
		write("s.tcl", script)
		if k := staKey(tool, dir, "s.tcl"); k != "" {
			t.Errorf("%q: key %q, want none", script, k)
		}
	}
}

// TestSynthCache: a second synthesis of the same files, in another work
// directory, takes Yosys's netlist and log from the synthesis cache (the
// tool is not run: its path is made wrong) with the same cells and area;
// a changed file misses it, and so does another ABC target.
func TestSynthCache(t *testing.T) {
	lib := needFlow(t)
	t.Setenv(toolchain.CacheDirEnv, t.TempDir())
	const src = "module m(input [3:0] a, b, output [3:0] y);\n  assign y = a + b;\nendmodule\n"
	synth := func(f *Flow, text string, targetPS float64) (*Netlist, error) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "m.v"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f.Synthesize(context.Background(), dir, "m", []string{"m.v"}, "plain", targetPS)
	}
	first, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want, err := synth(first, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantText, err := os.ReadFile(want.Path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	second.Yosys = &toolchain.Tool{Name: "yosys", Path: "/nonexistent/yosys", Version: second.Yosys.Version}
	got, err := synth(second, src, 0)
	if err != nil {
		t.Fatalf("not from the cache: %v", err)
	}
	gotText, err := os.ReadFile(got.Path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cells != want.Cells || got.Area != want.Area || got.Cells == 0 || string(gotText) != string(wantText) {
		t.Errorf("from the cache: %d cells, area %g, netlist equal %v; want %d cells, area %g", got.Cells, got.Area, string(gotText) == string(wantText), want.Cells, want.Area)
	}
	if _, err := synth(second, strings.Replace(src, "a + b", "a - b", 1), 0); err == nil {
		t.Error("a changed file was answered from the cache")
	}
	if _, err := synth(second, src, 500); err == nil {
		t.Error("another ABC target was answered from the cache")
	}
}
