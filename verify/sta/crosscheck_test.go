package sta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/rtl"
)

// TestCrosscheck_Sky130 runs three small hashes, one of them skipped, on
// two workers: the report keeps the order of the units, the progress
// function hears each unit run once, the characterized model's FO4 is
// near OpenSTA's, and the work directory holds each unit's files.
func TestCrosscheck_Sky130(t *testing.T) {
	lib := needFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	specUnits := unitsFrom(t, "hash_atomics.hcl", "atomic_xor", "atomic_add_ripple", "fixed_xor_matrix")
	var units []CrosscheckUnit
	for _, n := range []string{"fixed_xor_matrix", "atomic_add_ripple", "atomic_xor"} {
		u := specUnits[n]
		units = append(units, CrosscheckUnit{Design: u.design, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(),
			Info: rtl.Info{Version: "test", Source: "test"}})
	}
	units[1].Skip = "not wanted"
	work := t.TempDir()
	heard := map[string]int{}
	rep, err := Crosscheck(ctx, units, CrosscheckOptions{Config: Config{Liberty: lib, WorkDir: work}, BandPct: DefaultBandPct, Jobs: 2},
		func(d UnitDone) {
			heard[d.Name]++
			if d.Err != nil || d.TimedOut || d.Result == nil || !(d.Result.TimingDriven.DelayPS > 0) || !(d.Seconds > 0) {
				t.Errorf("progress %+v", d)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Units) != 2 || rep.Units[0].Name != "fixed_xor_matrix" || rep.Units[1].Name != "atomic_xor" {
		t.Fatalf("units %+v", rep.Units)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0] != (Skipped{Name: "atomic_add_ripple", Gates: len(units[1].Design.Gates), Reason: "not wanted"}) {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	if len(heard) != 2 || heard["fixed_xor_matrix"] != 1 || heard["atomic_xor"] != 1 {
		t.Errorf("progress heard %v", heard)
	}
	for _, u := range rep.Units {
		if u.Kind != "hash" || !(u.TimingDriven.FO4 > 0) || !(u.Mapped.FO4 > 0) || u.Lib.SizedErrorPct == nil || u.TargetPS != DefaultTargetPS {
			t.Errorf("unit %+v", u)
		}
	}
	// The area columns: the three netlists in µm² and in sky130's NAND2
	// equivalents (nand2_1, 3.7536 µm²), the characterized unsized GE
	// equal to the mapped netlist's, the errors set.
	if rep.Model.NAND2Area != 3.7536 {
		t.Errorf("NAND2 area %v, want 3.7536", rep.Model.NAND2Area)
	}
	for _, u := range rep.Units {
		a := u.Area
		if a == nil {
			t.Errorf("%s: no area", u.Name)
			continue
		}
		for _, f := range []AreaFigure{a.Mapped, a.Plain, a.TimingDriven} {
			if !(f.Area > 0) || math.Abs(f.GE-f.Area/3.7536) > 0.05 {
				t.Errorf("%s: area %+v", u.Name, f)
			}
		}
		if a.Mapped.Area != u.Mapped.Area || a.Plain.Area != u.Plain.Area || a.TimingDriven.Area != u.TimingDriven.Area || u.Mapped.Cells < u.Gates {
			t.Errorf("%s: area %+v, flows' %v, %v, %v (%d mapped cells)", u.Name, a, u.Mapped.Area, u.Plain.Area, u.TimingDriven.Area, u.Mapped.Cells)
		}
		if e := a.Lib.MappedErrorPct; e == nil || math.Abs(*e) > 0.1 || a.Lib.PlainErrorPct == nil || a.Lib.TimingDrivenErrorPct == nil ||
			a.Textbook.MappedErrorPct == nil || a.Textbook.TimingDrivenErrorPct == nil || a.Lib.SizedGE < a.Lib.UnsizedGE {
			t.Errorf("%s: area estimates %+v %+v", u.Name, a.Lib, a.Textbook)
		}
	}
	var md bytes.Buffer
	if err := rep.WriteAreaMarkdown(&md); err != nil || strings.Count(md.String(), "\n") != 2+len(rep.Units) {
		t.Errorf("area table (%v):\n%s", err, md.String())
	}
	// The characterized model's FO4 is near OpenSTA's (within 15%).
	if !(rep.Model.TauPS > 0) || math.Abs(rep.Model.FO4PS-rep.FO4.PS) > 0.15*rep.FO4.PS {
		t.Errorf("model τ %v ps, FO4 %v ps; OpenSTA's FO4 %v ps", rep.Model.TauPS, rep.Model.FO4PS, rep.FO4.PS)
	}
	for _, f := range []string{"atomic_xor/atomic_xor.v", "atomic_xor/timing_driven_sta.log", "fo4/fo4.tcl"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "atomic_add_ripple")); err == nil {
		t.Error("the skipped unit was run")
	}

	// A cancelled context stops the run with its error.
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if _, err := Crosscheck(cctx, units, CrosscheckOptions{Config: Config{Liberty: lib, WorkDir: t.TempDir()}}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// pageReport is a report of two units as Crosscheck would make it.
func pageReport(t *testing.T) *Report {
	t.Helper()
	var r Report
	err := json.Unmarshal([]byte(`{"library": "lib_tt", "liberty": "/some/where/lib_tt.lib.gz", "yosys": "0.23", "sta": "2.0.17",
		"driver": "inv_1", "driver_cap_ff": 2.3, "output_load_ff": 9.21, "source": "rtl", "removed_cells": 62, "fraig_conflicts": 10000,
		"fo4": {"rise_ps": 100.15, "fall_ps": 84.15, "ps": 92.15},
		"model": {"inverter": "inv_1", "tau_ps": 10.87, "p_inv": 3.53, "fo4_ps": 86.09, "wire_load": "Small"},
		"band_pct": 25,
		"units": [
		{"name": "a", "gates": 432, "within_band": false, "target_ps": 1, "seconds": 6.3,
		 "plain": {"fo4": 13.79}, "timing_driven": {"delay_ps": 1208.2, "fo4": 13.11}, "mapped": {"fo4": 12.13},
		 "lib": {"unsized_fo4": 10.34, "sized_fo4": 8.8, "unsized_error_pct": -25, "sized_error_pct": -32.9, "mapped_error_pct": -14.8},
		 "textbook": {"sized_fo4": 5.03, "sized_error_pct": -61.6}},
		{"name": "b", "gates": 5, "within_band": true, "target_ps": 1, "seconds": 1.9,
		 "plain": {"fo4": 2.82}, "timing_driven": {"delay_ps": 260.2, "fo4": 2.82}, "mapped": {"fo4": 2.62},
		 "lib": {"unsized_fo4": 2.74, "sized_fo4": 2.74, "unsized_error_pct": -3.1, "sized_error_pct": -3.1, "mapped_error_pct": 4.4},
		 "textbook": {"sized_fo4": 1.16, "sized_error_pct": -58.9}}],
		"skipped": [{"name": "c", "gates": 98166, "reason": "a Yosys or OpenSTA run exceeded --timeout 15m0s (900s)"}],
		"outside_band": ["a"]}`), &r)
	if err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestReport_WritePage: the page holds the method, the table of
// WriteMarkdown, the skipped units, the counts and the provenance; it
// names the liberty by its file name and holds no date.
func TestReport_WritePage(t *testing.T) {
	r := pageReport(t)
	info := PageInfo{Version: "lsugen 9.9.9", Jobs: 2, CPUs: 2, Seconds: 877}
	var page, table bytes.Buffer
	if err := r.WritePage(&page, info); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&table); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, want := range []string{
		"# lsugen's timing model against Yosys + OpenSTA on lib_tt\n",
		"## Method\n", "Yosys 0.23", "OpenSTA 2.0.17", "`abc -D 1 -constr`", "stops at 10000 conflicts",
		"inv_1 driving four copies of itself and the wire of a fanout-4 net, 86.09 ps. As a check, OpenSTA measures a stage of an FO4 chain of inv_1 at 92.15 ps " +
			"(100.15 ps rising, 84.15 ps falling; the characterized figure is -6.6% from it)",
		"FO4 figures are in the library's FO4 of 86.09 ps, the figure of `lsugen characterize` and the SDC",
		"## Results\n", table.String(),
		"- `c` (98166 gates): a Yosys or OpenSTA run exceeded --timeout 15m0s (900s)\n",
		"- the unsized model against lsugen's gates in library cells: 2;\n",
		"- the unsized model against the plain flow: 2;\n",
		"- the sized model against the timing-driven flow: 1 (outside: `a` (-32.9%));\n",
		"- the textbook model, sized, against the timing-driven flow: 0.\n",
		"## Provenance\n", "- lsugen 9.9.9; Yosys 0.23; OpenSTA 2.0.17.\n", "Library `lib_tt.lib.gz` (lib_tt)",
		"2 units at a time on a machine with 2 CPUs: 14 min 37 s in all, the slowest unit `a` 6.3 s.\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "/some/where") || regexp.MustCompile(`\b20[0-9][0-9]-[01][0-9]`).MatchString(s) {
		t.Errorf("page names the liberty's directory or holds a date:\n%s", s)
	}
	var again bytes.Buffer
	if err := r.WritePage(&again, info); err != nil || again.String() != s {
		t.Errorf("a second page differs (%v)", err)
	}
}
