package packaging_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/toolchain"
)

// sky130 is the reference cell library beside the repository, which the
// project does not copy: the tests that need it skip when it is absent.
const sky130 = "../../shared/liberty/sky130_fd_sc_hd__tt_025C_1v80.lib.gz"

var sky130Lib = sync.OnceValues(func() (*packaging.Library, error) {
	return packaging.LoadLibrary(sky130, liberty.Options{})
})

// unpackSky130 writes sky130 unpacked into a temporary directory, as the
// Yosys scripts need it (Yosys 0.23 reads no gzipped Liberty in abc), and
// returns its absolute path.
func unpackSky130(t *testing.T) string {
	t.Helper()
	lib := loadSky130(t)
	src, err := liberty.ReadFile(lib.Gzipped)
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "sky130_fd_sc_hd__tt_025C_1v80.lib")
	if err := os.WriteFile(plain, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return plain
}

// loadSky130 loads sky130 once per test binary, or skips.
func loadSky130(t *testing.T) *packaging.Library {
	t.Helper()
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("cell library not found: %v", err)
	}
	lib, err := sky130Lib()
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// TestLoadLibrary_Sky130: the library's FO4 and unit inverter are those
// lsugen characterize reports, the inverter's input capacitance that of
// its pin in the Liberty file; a gzipped file is named by the absolute
// path of its unpacked sibling, a plain one by its own absolute path, and
// the cells marked dont_use are listed.
func TestLoadLibrary_Sky130(t *testing.T) {
	lib := loadSky130(t)
	l, err := liberty.Load(sky130)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(l, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inv := l.Cells[ch.Inverter]
	if lib.Name != l.Name || lib.FO4PS != ch.FO4PS || lib.Inverter != ch.Inverter || lib.InverterCap != inv.Inputs[0].Cap ||
		lib.InverterIn != inv.Inputs[0].Name || lib.InverterOut != inv.Outputs[0].Name ||
		lib.TimeUnitPS != l.TimeUnitPS || lib.CapUnitFF != l.CapUnitFF || lib.Tech == nil {
		t.Errorf("library %+v, characterization %+v", lib, ch)
	}
	// The figures the project's README of the library states.
	if lib.Inverter != "sky130_fd_sc_hd__inv_1" || lib.InverterIn != "A" || lib.InverterOut != "Y" || lib.TimeUnitPS != 1000 ||
		lib.CapUnitFF != 1000 || lib.FO4PS < 70 || lib.FO4PS > 100 {
		t.Errorf("sky130: inverter %s (%s -> %s), units %v ps / %v fF, FO4 %v ps", lib.Inverter, lib.InverterIn, lib.InverterOut,
			lib.TimeUnitPS, lib.CapUnitFF, lib.FO4PS)
	}
	gz, _ := filepath.Abs(sky130)
	if lib.Gzipped != gz || lib.Path != strings.TrimSuffix(gz, ".gz") || len(lib.DontUse) != 0 {
		t.Errorf("gzipped library: path %q, gzipped %q (want %q), don't-use %v (sky130 marks none)", lib.Path, lib.Gzipped, gz, lib.DontUse)
	}

	plain := unpackSky130(t)
	p, err := packaging.LoadLibrary(plain, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != plain || p.Gzipped != "" || p.FO4PS != lib.FO4PS || p.Inverter != lib.Inverter {
		t.Errorf("plain library: path %q (want %q), gzipped %q, FO4 %v, inverter %s", p.Path, plain, p.Gzipped, p.FO4PS, p.Inverter)
	}

	// A cell marked dont_use is listed for the Yosys script.
	src, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	marked := bytes.Replace(src, []byte("cell (\"sky130_fd_sc_hd__a2111o_1\") {"), []byte("cell (\"sky130_fd_sc_hd__a2111o_1\") {\n dont_use : true;"), 1)
	if bytes.Equal(marked, src) {
		t.Fatal("no cell a2111o_1 to mark dont_use")
	}
	mp := filepath.Join(t.TempDir(), "marked.lib")
	if err := os.WriteFile(mp, marked, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := packaging.LoadLibrary(mp, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.DontUse) != 1 || m.DontUse[0] != "sky130_fd_sc_hd__a2111o_1" {
		t.Errorf("don't-use cells %v, want [sky130_fd_sc_hd__a2111o_1]", m.DontUse)
	}

	if _, err := packaging.LoadLibrary("testdata/tiny.lib", liberty.Options{}); err == nil || !strings.Contains(err.Error(), "no usable cell") {
		t.Errorf("tiny.lib, which has no XOR: error %v", err)
	}
}

// TestLibertyOutputs_Sky130: with the library, the SDC's defaults are its
// FO4 in its time unit, its unit inverter as the driving cell and the
// inverter's input capacitance as the load unit; the estimate is in the
// library's gate table; the Yosys script maps onto the library and runs;
// OpenSTA reads the mapped netlist and the SDC without an error or
// warning, keeps a FO4_DELAY set before read_sdc, and times the paths
// from the inputs to the outputs later with the SDC's driving cell and
// load than with ideal inputs and unloaded outputs.
func TestLibertyOutputs_Sky130(t *testing.T) {
	lib, err := packaging.LoadLibrary(unpackSky130(t), liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	sta, err := toolchain.Find("sta")
	if err != nil {
		t.Skip(err)
	}
	for _, g := range generateFor(t, false, lib) {
		name := g.unit.Name
		sdc, ys := string(g.files[name+".sdc"]), string(g.files[name+".ys"])
		if g.unit.Tech != lib.Name || !strings.Contains(sdc, "(lsugen timing --timing-mode sized --liberty LIB, the gate table of\n# "+lib.Name+"): ") {
			t.Errorf("%s: estimate in gate table %q, want %q:\n%s", name, g.unit.Tech, lib.Name, sdc)
		}
		for _, want := range []string{
			fmt.Sprintf("if {![info exists FO4_DELAY]} { set FO4_DELAY %s }\n", strconv.FormatFloat(lib.FO4PS/lib.TimeUnitPS, 'g', 6, 64)),
			fmt.Sprintf("%.2f ps, the library's FO4 as lsugen characterize computes it", lib.FO4PS),
			"if {![info exists DRIVING_CELL]} { set DRIVING_CELL sky130_fd_sc_hd__inv_1 }\n",
			"if {![info exists DRIVING_PIN]}  { set DRIVING_PIN Y }\n",
			fmt.Sprintf("if {![info exists INV_CAP]}      { set INV_CAP %s }\n", strconv.FormatFloat(lib.InverterCap, 'g', 6, 64)),
			"set_load [expr {1 * $INV_CAP}] [get_ports {" + portsOf(g.unit.Outputs) + "}]\n",
		} {
			if !strings.Contains(sdc, want) {
				t.Errorf("%s.sdc lacks %q:\n%s", name, want, sdc)
			}
		}
		p := lib.Path
		for _, want := range []string{"read_liberty -lib " + p + "\n", "abc -liberty " + p + "\n", "stat -liberty " + p + "\n"} {
			if !strings.Contains(ys, want) {
				t.Errorf("%s.ys lacks %q:\n%s", name, want, ys)
			}
		}
		if (g.unit.Clock != "") != strings.Contains(ys, "\ndfflibmap -liberty "+p+"\n") {
			t.Errorf("%s.ys: dfflibmap for a unit with clock %q:\n%s", name, g.unit.Clock, ys)
		}
		if strings.Contains(ys, "#   abc") {
			t.Errorf("%s.ys still has the generic mapping comments:\n%s", name, ys)
		}
		for f := range g.files {
			if strings.HasSuffix(f, ".lib") {
				t.Errorf("%s: Files copies the library as %s", name, f)
			}
		}
		if core := string(g.files[name+".core"]); !strings.Contains(core, "  liberty:\n    files:\n      - "+p+"\n    file_type: liberty\n") {
			t.Errorf("%s.core does not name the library by its path:\n%s", name, core)
		}

		dir := t.TempDir()
		writeFiles(t, dir, g.files)
		out := runIn(t, dir, y.Path, name+".ys")
		synth, err := os.ReadFile(filepath.Join(dir, name+"_synth.v"))
		if err != nil || !bytes.Contains(synth, []byte("sky130_fd_sc_hd__")) || !strings.Contains(out, "Chip area") {
			t.Fatalf("%s: no netlist in sky130 cells (%v); Yosys:\n%s", name, err, out)
		}

		libPath := lib.Path
		keep := runSTA(t, sta, dir, libPath, name, "set FO4_DELAY 123\n", clockOf(g.unit))
		if strings.Contains(keep, "Error") || strings.Contains(keep, "Warning") {
			t.Errorf("%s: OpenSTA:\n%s", name, keep)
		}
		v := staValues(t, keep)
		if want := 123 * periodFactor(t, sdc); math.Abs(v["period"]-want) > 1e-3*want || v["FO4_DELAY"] != 123 {
			t.Errorf("%s: with FO4_DELAY 123 preset: FO4_DELAY %v, period %v, want %v", name, v["FO4_DELAY"], v["period"], want)
		}
		if v["INV_CAP"] != lib.InverterCap {
			t.Errorf("%s: INV_CAP %v, want %v", name, v["INV_CAP"], lib.InverterCap)
		}
		ideal := staValues(t, runSTA(t, sta, dir, libPath, name, "set DRIVING_CELL \"\"\nset INV_CAP 0\n", clockOf(g.unit)))
		dflt := staValues(t, runSTA(t, sta, dir, libPath, name, "", clockOf(g.unit)))
		t.Logf("%s: period %v, arrival from the inputs %v s with the driving cell and load, %v s without", name, dflt["period"], dflt["arrival"], ideal["arrival"])
		if dflt["arrival"] <= ideal["arrival"] {
			t.Errorf("%s: arrival %v s with the SDC's driving cell and load, %v s without: want later", name, dflt["arrival"], ideal["arrival"])
		}
		if want := periodFactor(t, sdc) * lib.FO4PS / lib.TimeUnitPS; math.Abs(dflt["period"]-want) > 1e-3*want {
			t.Errorf("%s: default period %v, want the budget times the library's FO4 = %v", name, dflt["period"], want)
		}
	}
}
