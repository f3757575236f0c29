package sta

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// TestMappedArea_SumsLibraryCells: the mapped area of two small units (a
// ripple adder, a pipeline with flip-flops and composite AND/OR cells)
// is the sum of the library areas of the cells MappedVerilog
// instantiates, read back from its text; the characterized model's
// unsized GE is that area in NAND2 equivalents.
func TestMappedArea_SumsLibraryCells(t *testing.T) {
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	lib, err := liberty.Load(sky130)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(lib, liberty.Options{DontUse: DefaultDontUse})
	if err != nil {
		t.Fatal(err)
	}
	nand2, err := NAND2Area(ch, lib)
	if err != nil {
		t.Fatal(err)
	}
	// sky130_fd_sc_hd__nand2_1's area in the liberty.
	if nand2 != 3.7536 {
		t.Errorf("NAND2 area %v, want 3.7536 (sky130_fd_sc_hd__nand2_1)", nand2)
	}
	units := unitsFrom(t, "hash_atomics.hcl", "atomic_add_ripple")
	for k, v := range unitsFrom(t, "pipeline.hcl", "ep_unified_m4") {
		units[k] = v
	}
	inst := regexp.MustCompile(`(?m)^  (\S+) g\d+(?:_inv)? \(`)
	for _, name := range []string{"atomic_add_ripple", "ep_unified_m4"} {
		d := units[name].design
		_, text, err := MappedVerilog(d, ch)
		if err != nil {
			t.Fatal(err)
		}
		want, n := 0.0, 0
		for _, m := range inst.FindAllStringSubmatch(text, -1) {
			c, ok := lib.Cells[m[1]]
			if !ok {
				t.Fatalf("%s: instance of %s, no cell of the library", name, m[1])
			}
			want += c.Area
			n++
		}
		if name == "ep_unified_m4" && n <= len(d.Gates) {
			t.Errorf("%s: %d instances for %d gates: no composite cell to check", name, n, len(d.Gates))
		}
		if dff := ch.Kinds[netlist.DFF].Core; name == "ep_unified_m4" && !strings.Contains(text, "  "+dff+" g") {
			t.Errorf("%s: no flip-flop %s to check", name, dff)
		}
		area, cells, err := MappedArea(d, ch, lib)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(area-want) > 1e-9*want || cells != n || !(area > 0) {
			t.Errorf("%s: MappedArea %v (%d cells), the instances' cells sum to %v (%d cells)", name, area, cells, want, n)
		}
		opt := timing.OptionsFor(ch.Tech)
		res, err := timing.Analyze(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if ge := want / nand2; math.Abs(res.AreaGE-ge) > 1e-3 {
			t.Errorf("%s: characterized unsized area %v GE, mapped %v GE", name, res.AreaGE, ge)
		}
		t.Logf("%s: %d gates, %d cells, %.2f µm², %.1f GE", name, len(d.Gates), cells, area, area/nand2)
	}
}

// TestReport_AreaColumns: setArea converts the netlists' areas by the
// NAND2 area and compares unsized with mapped and plain, sized with
// timing-driven, memory macros left out; the text, Markdown and JSON
// reports carry the figures.
func TestReport_AreaColumns(t *testing.T) {
	r := &Report{Library: "sky130_fd_sc_hd__tt_025C_1v80", Model: ModelTech{NAND2Area: 4, Cells: map[string]string{"NAND2": "nand2_1"}}}
	ur := UnitReport{Name: "u", Mapped: FlowReport{Area: 400}, Plain: FlowReport{Area: 200}, TimingDriven: FlowReport{Area: 800}}
	lib := [2]*timing.Result{{AreaGE: 110, MemoryAreaGE: 10}, {AreaGE: 160, MemoryAreaGE: 10}}
	textbook := [2]*timing.Result{{AreaGE: 80}, {AreaGE: 300}}
	r.setArea(&ur, lib, textbook)
	a := ur.Area
	if a == nil {
		t.Fatal("no area")
	}
	if a.Mapped != (AreaFigure{400, 100}) || a.Plain != (AreaFigure{200, 50}) || a.TimingDriven != (AreaFigure{800, 200}) {
		t.Errorf("figures %+v %+v %+v", a.Mapped, a.Plain, a.TimingDriven)
	}
	check := func(what string, e AreaEstimate, unsized, sized, mapped, plain, td float64) {
		t.Helper()
		if e.UnsizedGE != unsized || e.SizedGE != sized || e.MappedErrorPct == nil || *e.MappedErrorPct != mapped ||
			e.PlainErrorPct == nil || *e.PlainErrorPct != plain || e.TimingDrivenErrorPct == nil || *e.TimingDrivenErrorPct != td {
			t.Errorf("%s: %+v, want %v/%v GE, errors %v, %v, %v", what, e, unsized, sized, mapped, plain, td)
		}
	}
	check("lib", a.Lib, 100, 150, 0, 100, -25)
	check("textbook", a.Textbook, 80, 300, -20, 60, 50)
	r.Units = append(r.Units, ur, UnitReport{Name: "old"}) // a unit of an older report: no area

	var md, text bytes.Buffer
	if err := r.WriteAreaMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	want := "| u | 100.0 GE (400.0) | 50.0 GE (200.0) | 200.0 GE (800.0) | 100.0 | +0.0%; +100.0% | 150.0 | -25.0% | 80.0 | -20.0%; +60.0% | 300.0 | +50.0% |\n"
	if lines := strings.SplitAfter(md.String(), "\n"); len(lines) != 4 || lines[2] != want || strings.Count(lines[0], "|") != strings.Count(want, "|") {
		t.Errorf("Markdown:\n%s\nwant row\n%s", md.String(), want)
	}
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "nand2_1, 4 µm² per GE") || !regexp.MustCompile(`(?m)^ *u +100\.0 +400\.0 +50\.0 +200\.0 +200\.0 +800\.0 +100\.0 +\+0\.0% +\+100\.0% +150\.0 +-25\.0%`).MatchString(text.String()) {
		t.Errorf("text:\n%s", text.String())
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Units []map[string]json.RawMessage `json:"units"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Units[0]["area"]; !ok {
		t.Errorf("JSON unit has no area: %s", b)
	}
	if _, ok := doc.Units[1]["area"]; ok {
		t.Errorf("JSON unit without area figures has one: %s", b)
	}

	var page bytes.Buffer
	if err := r.WritePage(&page, PageInfo{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(nand2_1, 4 µm² per GE;", md.String(),
		"- the characterized model: unsized against lsugen's gates in library cells +0.0% (1 unit); unsized against the plain flow +100.0% (1 unit); " +
			"sized against the timing-driven flow -25.0% (1 unit);\n"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q:\n%s", want, page.String())
		}
	}

	// Without a NAND2 area nothing converts: no area.
	r.Model.NAND2Area = 0
	r.setArea(&ur, lib, textbook)
	if ur.Area != nil {
		t.Errorf("area without a NAND2 area: %+v", ur.Area)
	}
}
