package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify/sta"
)

func TestCrosscheck_Usage(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	for _, args := range [][]string{
		{spec}, // no --liberty
		{"--liberty", "x.lib", "--load", "0", spec}, // no load
		{"--liberty", "x.lib", "--source", "netlist", spec},
		{"--liberty", "x.lib", "--jobs", "0", spec},
		{"--liberty", "x.lib", "--fraig-conflicts", "0", spec},
		{"--liberty", "x.lib", "--json", "--markdown", spec},
		{"--liberty", "x.lib"}, // no specs
		{"--liberty", "x.lib", "--skip", "nonesuch", spec},
	} {
		code, _, stderr := lsugen(t, append([]string{"crosscheck-timing"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// A missing liberty is bad input, found before any tool runs.
	code, _, stderr := lsugen(t, "crosscheck-timing", "--liberty", filepath.Join(dir, "none.lib"), "--work", filepath.Join(dir, "work"), spec)
	if code != 2 || !strings.Contains(stderr, "none.lib") {
		t.Errorf("missing liberty: exit %d, stderr %q", code, stderr)
	}
}

// TestCrosscheck_JSON runs the command on one fixed XOR hash with sky130
// (the work itself is tested in verify/sta): the JSON report, the
// --work directory and the --doc page.
func TestCrosscheck_JSON(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesis and timing runs: not in -short")
	}
	for _, tool := range []string{"yosys", "sta"} {
		if _, err := toolchain.Find(tool); err != nil {
			t.Skipf("%v", err)
		}
	}
	lib, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz"))
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	work := filepath.Join(dir, "work")
	page := filepath.Join(dir, "page.md")
	code, stdout, stderr := lsugen(t, "crosscheck-timing", "--liberty", lib, "--json", "--work", work, "--doc", page, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateJSON(t, "crosscheck-timing.json", stdout)
	var rep struct {
		Driver         string `json:"driver"`
		FraigConflicts int    `json:"fraig_conflicts"`
		FO4            struct {
			PS float64 `json:"ps"`
		} `json:"fo4"`
		Units []struct {
			Name string `json:"name"`
			Lib  struct {
				SizedFO4 float64  `json:"sized_fo4"`
				SizedErr *float64 `json:"sized_error_pct"`
			} `json:"lib"`
			TimingDriven struct {
				DelayPS float64 `json:"delay_ps"`
				FO4     float64 `json:"fo4"`
			} `json:"timing_driven"`
			Area *sta.AreaReport `json:"area"`
		} `json:"units"`
		OutsideBand []string `json:"outside_band"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Driver != "sky130_fd_sc_hd__inv_1" || !(rep.FO4.PS > 0) || len(rep.Units) != 1 || rep.FraigConflicts != 10000 {
		t.Fatalf("report %+v", rep)
	}
	u := rep.Units[0]
	if u.Name != "h" || !(u.TimingDriven.DelayPS > 0) || u.Lib.SizedErr == nil || !(u.Lib.SizedFO4 > 0) || rep.OutsideBand == nil {
		t.Errorf("unit %+v", u)
	}
	if a := u.Area; a == nil || !(a.Mapped.GE > 0) || !(a.Plain.GE > 0) || !(a.TimingDriven.GE > 0) || a.Lib.TimingDrivenErrorPct == nil {
		t.Errorf("unit's area %+v", a)
	}
	// --doc writes the page with the same table as --markdown.
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# lsugen's timing model against Yosys + OpenSTA on sky130_fd_sc_hd__tt_025C_1v80\n",
		"| unit | gates |", "\n| h | ", "| unit | lsugen's gates in library cells | flow plain |", "## Provenance\n", "Library `sky130_fd_sc_hd__tt_025C_1v80.lib.gz`"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--doc page lacks %q:\n%s", want, b)
		}
	}
	// --work keeps the scripts, netlists and logs.
	for _, f := range []string{"h/h.v", "h/plain_netlist.v", "h/timing_driven.constr", "h/timing_driven_sta.log", "fo4/fo4.tcl"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestCrosscheck_FlowFrom: --flow-from runs no tool: the flows of a
// previous run's --json report beside estimates computed now, in the
// same JSON and page; flags that set up the flow are refused with it,
// and a missing or foreign report is bad input.
func TestCrosscheck_FlowFrom(t *testing.T) {
	lib, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz"))
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	l, err := liberty.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(l, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	prev := sta.Report{Library: l.Name, Liberty: lib, Yosys: "0.23", STA: "2.0.17", Driver: ch.Inverter,
		DriverCapFF: ch.RefCapFF, OutputLoadFF: 4 * ch.RefCapFF, Source: "rtl", FraigConflicts: 10000,
		FO4: sta.FO4{RisePS: 100, FallPS: 84, PS: 92}, Model: sta.NewModelTech(ch), BandPct: 25, Seconds: 99,
		Units: []sta.UnitReport{{Name: "h", TargetPS: 1, Seconds: 3,
			Plain:        sta.FlowReport{DelayPS: 260, FO4: 2.83},
			TimingDriven: sta.FlowReport{DelayPS: 250, FO4: 2.72},
			Mapped:       sta.FlowReport{DelayPS: 240, FO4: 2.61}}}}
	b, err := json.Marshal(prev)
	if err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(from, b, 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.md")
	code, stdout, stderr := lsugen(t, "crosscheck-timing", "--liberty", lib, "--flow-from", from, "--json", "--doc", page, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateJSON(t, "crosscheck-timing.json", stdout)
	var rep sta.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.FlowFrom || len(rep.Units) != 1 || rep.Units[0].TimingDriven.DelayPS != 250 || !(rep.Units[0].Lib.SizedFO4 > 0) ||
		rep.Units[0].Lib.SizedErrorPct == nil || rep.Units[0].LibFixedSlew == nil || rep.Seconds != 99 {
		t.Errorf("report %+v", rep)
	}
	b, err = os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "(`crosscheck-timing --flow-from`)") || !strings.Contains(s, "that run took 1 min 39 s in all") ||
		!strings.Contains(s, "\n| h | ") || strings.Contains(s, "units at a time") {
		t.Errorf("--doc page:\n%s", s)
	}

	// --markdown: the delays' table, then the areas' (mapped computed now,
	// the flows' areas prev's 0: no error against them).
	code, stdout, stderr = lsugen(t, "crosscheck-timing", "--liberty", lib, "--flow-from", from, "--markdown", spec)
	if tables := strings.Split(stdout, "\n\n"); code != 0 || len(tables) != 2 || !strings.HasPrefix(tables[1], "| unit | lsugen's gates in library cells |") ||
		!strings.Contains(tables[1], "\n| h | ") || !strings.Contains(tables[1], "| 0.0 GE (0.0) |") || !strings.Contains(tables[1], "n/a") {
		t.Errorf("--markdown: exit %d, %s\n%s", code, stderr, stdout)
	}

	for _, args := range [][]string{
		{"--work", dir},
		{"--driver-cell", "x"},
		{"--source", "gates"},
	} {
		code, _, stderr := lsugen(t, append([]string{"crosscheck-timing", "--liberty", lib, "--flow-from", from}, append(args, spec)...)...)
		if code != 2 || !strings.Contains(stderr, "--flow-from") {
			t.Errorf("%v with --flow-from: exit %d, %s", args, code, stderr)
		}
	}
	notReport := filepath.Join(dir, "not.json")
	os.WriteFile(notReport, []byte(`{"version": "0.1.0"}`), 0o644)
	for _, f := range []string{filepath.Join(dir, "none.json"), notReport} {
		if code, _, stderr := lsugen(t, "crosscheck-timing", "--liberty", lib, "--flow-from", f, spec); code != 2 {
			t.Errorf("--flow-from %s: exit %d, %s", f, code, stderr)
		}
	}
}
