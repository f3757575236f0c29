package packaging_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
)

// hashAt is a 32-bit add hash with a ripple adder pipelined at clock_fo4
// periodFO4: long enough a path for several stages.
func hashAt(periodFO4 string) string {
	return `hash "h_clk" {
  function  = "add"
  addr_bits = 32
  bank_bits = 5
  adder     = "ripple"
  clock_fo4 = ` + periodFO4 + `
}
`
}

// buildOne generates the one unit of spec as gen --fusesoc does (the
// estimate under packaging.EstimateOptions(lib)) and renders its Verilog
// and packaging files.
func buildOne(t *testing.T, spec string, lib *packaging.Library) (*packaging.Unit, map[string][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.hcl")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	file, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(file.Units) != 1 {
		t.Fatalf("%d units, want 1", len(file.Units))
	}
	su := file.Units[0]
	b, gd := units.Build(su)
	if gd.HasErrors() {
		t.Fatal(gd)
	}
	opt := packaging.EstimateOptions(lib)
	res, err := timing.Analyze(b.Design, opt)
	if err != nil {
		t.Fatal(err)
	}
	u := packaging.NewUnit(b.Design, su.UnitKind(), su.Variant(), "t.hcl:1", gen.Version, packaging.EstimateOf(res, opt))
	u.Library = lib
	files, err := rtl.Files(b.Design, rtl.Info{Version: "lsugen " + gen.Version, Source: "t.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	for n, f := range packaging.Files(u) {
		files[n] = f
	}
	return u, files
}

// TestSDC_TargetPeriod: a pipelined unit's SDC clock is the period it was
// cut at, in FO4 times FO4_DELAY without a library and in the library's
// time unit with one (1000 ps reads 1.000 ns), the estimate of its worst
// stage in a comment; the Yosys script's abc gets that period as its delay
// target in ps. Without a period asked for, the clock stays the estimate
// and says so.
func TestSDC_TargetPeriod(t *testing.T) {
	lib := &packaging.Library{Name: "fake", TimeUnitPS: 1000, CapUnitFF: 1000, FO4PS: 80, Path: "/libs/fake.lib",
		Inverter: "inv", InverterIn: "A", InverterOut: "Y", InverterCap: 0.002}
	u, files := buildOne(t, hashAt("12.5"), nil)
	if u.Clock == "" || u.PeriodFO4 != 12.5 {
		t.Fatalf("unit clock %q, period %v FO4: want a pipelined unit at 12.5 FO4", u.Clock, u.PeriodFO4)
	}
	sdc, ys := string(files[u.Name+".sdc"]), string(files[u.Name+".ys"])
	for _, want := range []string{
		"# The target period, the period the unit was pipelined at: 12.5 FO4.\n",
		"set CLK_PERIOD [expr {12.5 * $FO4_DELAY}]\n",
		"# lsugen's estimate of the worst stage, logical effort",
	} {
		if !strings.Contains(sdc, want) {
			t.Errorf("generic SDC lacks %q:\n%s", want, sdc)
		}
	}
	if !strings.Contains(ys, "#   abc -D PERIOD_PS -liberty cells.lib\n") {
		t.Errorf("generic Yosys script has no delay target line:\n%s", ys)
	}

	u.Library = lib
	sdc, ys = string(packaging.SDC(u)), string(packaging.YosysScript(u))
	for _, want := range []string{
		"# The target period, the period the unit was pipelined at: 12.5 FO4,\n# 1000.0 ps at the library's FO4.\n",
		"set CLK_PERIOD 1.000\n",
		"create_clock -name clk -period $CLK_PERIOD [get_ports clk]\n",
	} {
		if !strings.Contains(sdc, want) {
			t.Errorf("SDC lacks %q:\n%s", want, sdc)
		}
	}
	for _, want := range []string{"abc -D 1000 -constr h_clk.constr -liberty /libs/fake.lib\n", "read_liberty -lib /libs/fake.lib\n", "dfflibmap -liberty /libs/fake.lib\n"} {
		if !strings.Contains(ys, want) {
			t.Errorf("Yosys script lacks %q:\n%s", want, ys)
		}
	}
	// abc's constraints: the SDC's driving cell and load, in fF.
	if c := string(packaging.Files(u)["h_clk.constr"]); c != "set_driving_cell inv\nset_load 2\n" {
		t.Errorf("ABC constraints %q", c)
	}
	// Rounded to 1e-4 of the unit, three decimals at least.
	for _, c := range []struct {
		period float64
		want   string
	}{{12.5, "1.000"}, {10.7625, "0.861"}, {15.43125, "1.2345"}, {100, "8.000"}} {
		u.PeriodFO4 = c.period
		if s := string(packaging.SDC(u)); !strings.Contains(s, "set CLK_PERIOD "+c.want+"\n") {
			t.Errorf("period %v FO4 at 80 ps: want CLK_PERIOD %s:\n%s", c.period, c.want, s)
		}
	}

	// No period asked for: the estimate, said so; no delay target.
	u.PeriodFO4, u.PeriodOf = 0, ""
	sdc, ys = string(packaging.SDC(u)), string(packaging.YosysScript(u))
	if !strings.Contains(sdc, "# No period was asked for (no clock_fo4): the period is lsugen's estimate,\n") ||
		!regexp.MustCompile(`(?m)^set CLK_PERIOD \[expr \{[0-9.]+ \* \$FO4_DELAY\}\]$`).MatchString(sdc) {
		t.Errorf("SDC without a target:\n%s", sdc)
	}
	if strings.Contains(ys, "\nabc -D") || !strings.Contains(ys, "\nabc -liberty /libs/fake.lib\n") {
		t.Errorf("Yosys script without a target:\n%s", ys)
	}
	if _, ok := packaging.Files(u)["h_clk.constr"]; ok {
		t.Errorf("ABC constraints without a target period")
	}
}

// TestSDC_TargetPeriod_SharedMemory: a shared memory's clock_fo4 is its
// target period, as a pipelined unit's.
func TestSDC_TargetPeriod_SharedMemory(t *testing.T) {
	u, files := buildOne(t, `shared_memory "sm_c" {
  lanes     = 8
  bytes     = 512
  banks     = 8
  clock_fo4 = 60
}
`, nil)
	sdc := string(files[u.Name+".sdc"])
	if u.PeriodFO4 != 60 || !strings.Contains(sdc, "# The target period, the unit's clock_fo4: 60 FO4.\nset CLK_PERIOD [expr {60 * $FO4_DELAY}]\n") {
		t.Errorf("period %v FO4; SDC:\n%s", u.PeriodFO4, sdc)
	}
}

// TestSDC_TargetPeriod_Sky130: a hash pipelined at the period that is
// 1000 ps in sky130's FO4 gets a 1.000 ns clock; its Yosys script maps it
// onto the library, timing-driven at 1000 ps, and OpenSTA with the SDC on
// that netlist times it against the 1 ns clock and reports its slack.
func TestSDC_TargetPeriod_Sky130(t *testing.T) {
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Fatal(err)
	}
	sta, err := toolchain.Find("sta")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := packaging.LoadLibrary(unpackSky130(t), liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	period := strconv.FormatFloat(1000/lib.FO4PS, 'f', 6, 64)
	u, files := buildOne(t, hashAt(period), lib)
	name := u.Name
	sdc, ys := string(files[name+".sdc"]), string(files[name+".ys"])
	if !strings.Contains(sdc, "set CLK_PERIOD 1.000\n") {
		t.Errorf("clock_fo4 %s: SDC without a 1.000 ns clock:\n%s", period, sdc)
	}
	if !strings.Contains(ys, "abc -D 1000 -constr "+name+".constr -liberty "+lib.Path+"\n") {
		t.Errorf("Yosys script not timing-driven at 1000 ps:\n%s", ys)
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	if out := runIn(t, dir, y.Path, name+".ys"); !strings.Contains(out, "Chip area") {
		t.Fatalf("Yosys:\n%s", out)
	}
	script := fmt.Sprintf("read_liberty {%s}\nread_verilog %s_synth.v\nlink_design %s\nread_sdc %s.sdc\n", lib.Path, name, name, name) +
		"puts \"lsugen period [get_property [get_clocks clk] period]\"\n" +
		"report_checks -path_delay max -digits 4\n" +
		"report_worst_slack -digits 4\n"
	writeFiles(t, dir, map[string][]byte{"sta.tcl": []byte(script)})
	out := runIn(t, dir, sta.Path, "-no_splash", "-exit", "sta.tcl")
	if strings.Contains(out, "Error") || strings.Contains(out, "Warning") {
		t.Errorf("OpenSTA:\n%s", out)
	}
	v := map[string]float64{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "lsugen" {
			v[f[1]], _ = strconv.ParseFloat(f[2], 64)
		}
	}
	if v["period"] != 1 {
		t.Errorf("OpenSTA's clock period %v ns, want 1:\n%s", v["period"], out)
	}
	// The path report's summary: the required time is the 1 ns edge less
	// the setup time, the slack that plus the (negated) arrival.
	m := regexp.MustCompile(`(?m)^\s*(-?[0-9.]+)\s+data required time\n\s*(-?[0-9.]+)\s+data arrival time\n-+\n\s*(-?[0-9.]+)\s+slack \((?:MET|VIOLATED)\)`).FindStringSubmatch(out)
	w := regexp.MustCompile(`(?m)^worst slack (-?[0-9.]+)$`).FindStringSubmatch(out)
	if m == nil || w == nil {
		t.Fatalf("no slack in OpenSTA's report:\n%s", out)
	}
	req, _ := strconv.ParseFloat(m[1], 64)
	arr, _ := strconv.ParseFloat(m[2], 64)
	slack, _ := strconv.ParseFloat(m[3], 64)
	wns, _ := strconv.ParseFloat(w[1], 64)
	arr = -arr
	if !(req > 0.8 && req < 1) || math.Abs(req-arr-slack) > 2e-4 || math.Abs(slack-wns) > 2e-4 {
		t.Errorf("required %v, arrival %v, slack %v ns, worst slack %v: want required within the 1 ns period less a setup time\n%s", req, arr, slack, wns, out)
	}
	t.Logf("%s at clock_fo4 %s (1.000 ns): estimate of the worst stage %.2f FO4; OpenSTA: arrival %.4f ns, required %.4f ns, slack %+.4f ns",
		name, period, u.FO4, arr, req, slack)
}
