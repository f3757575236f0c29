package sta

import (
	"os"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// TestRecompute: with a previous run's report, the flows are that run's
// and the estimates are computed now (the same as Analyze gives, with
// the figures at a fixed transition beside them); a unit the run did not
// have is skipped; a report of other cells or another library is refused.
// No tool runs.
func TestRecompute(t *testing.T) {
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	lib, err := liberty.Load(sky130)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(lib, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prev := pageReport(t)
	prev.Library = lib.Name
	prev.Model = NewModelTech(ch)
	prev.DriverCapFF, prev.OutputLoadFF = ch.RefCapFF, 4*ch.RefCapFF
	prev.Units[0].Name = "atomic_xor"
	prev.Units[1].Name = "gone"
	specUnits := unitsFrom(t, "hash_atomics.hcl", "atomic_xor", "fixed_xor_matrix")
	var units []CrosscheckUnit
	for _, n := range []string{"atomic_xor", "fixed_xor_matrix"} {
		u := specUnits[n]
		units = append(units, CrosscheckUnit{Design: u.design, Kind: u.spec.UnitKind(), Variant: u.spec.Variant()})
	}
	r, err := Recompute(units, prev, lib, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !r.FlowFrom || r.BandPct != 20 || r.FO4 != prev.FO4 || r.Yosys != prev.Yosys || len(r.Units) != 1 {
		t.Fatalf("report %+v", r)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Name != "fixed_xor_matrix" || r.Skipped[0].Reason != "not in the flow report" {
		t.Errorf("skipped %+v", r.Skipped)
	}
	u := r.Units[0]
	// The flows' delays in ps are prev's; their FO4 converts by the
	// library's FO4, whichever figure prev converted by.
	if r.FO4PS() != round(ch.FO4PS, 4) {
		t.Errorf("report's FO4 %v ps, the characterization's %v", r.FO4PS(), ch.FO4PS)
	}
	pu := prev.Units[0]
	pu.TimingDriven.FO4 = round(pu.TimingDriven.DelayPS/r.FO4PS(), 2)
	pu.Mapped.FO4 = round(pu.Mapped.DelayPS/r.FO4PS(), 2)
	// The mapped area is computed anew, from the library: prev has none.
	area, cells, err := MappedArea(units[0].Design, ch, lib)
	if err != nil {
		t.Fatal(err)
	}
	pu.Mapped.Area, pu.Mapped.Cells = round(area, 2), cells
	if u.Area == nil || u.Area.Mapped.Area != pu.Mapped.Area || !(u.Area.Mapped.GE > 0) || r.Model.NAND2Area != 3.7536 {
		t.Errorf("area %+v, NAND2 area %v", u.Area, r.Model.NAND2Area)
	}
	if u.TimingDriven != pu.TimingDriven || u.Mapped != pu.Mapped || u.Seconds != pu.Seconds ||
		u.Kind != "hash" || u.Gates != len(units[0].Design.Gates) {
		t.Errorf("unit %+v, previous %+v", u, pu)
	}
	opt := timing.OptionsFor(ch.Tech)
	opt.OutputLoad, opt.Mode = 4, timing.Sized
	want, err := timing.Analyze(units[0].Design, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := round(want.DelayPS/r.FO4PS(), 2); u.Lib.SizedFO4 != got || u.Lib.SizedErrorPct == nil {
		t.Errorf("sized %v FO4, want %v", u.Lib.SizedFO4, got)
	}
	if u.LibFixedSlew == nil || u.LibFixedSlew.SizedFO4 == u.Lib.SizedFO4 {
		t.Errorf("fixed-transition figures %+v beside %+v", u.LibFixedSlew, u.Lib)
	}
	if u.WithinBand != (*u.Lib.SizedErrorPct <= 20 && *u.Lib.SizedErrorPct >= -20) {
		t.Errorf("within band %v at %v%%", u.WithinBand, *u.Lib.SizedErrorPct)
	}

	prev.Model.Cells["XOR2"] = "some_xor"
	if _, err := Recompute(units, prev, lib, 20); err == nil || !strings.Contains(err.Error(), "XOR2") {
		t.Errorf("other cells: %v", err)
	}
	prev.Library = "other"
	if _, err := Recompute(units, prev, lib, 20); err == nil || !strings.Contains(err.Error(), "other") {
		t.Errorf("other library: %v", err)
	}
}
