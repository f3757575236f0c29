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
// its pin in the Liberty file; a gzipped file gives an unpacked copy for
// Yosys under its name without .gz, a plain one its absolute path and no
// copy.
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
	if lib.Path != "sky130_fd_sc_hd__tt_025C_1v80.lib" || len(lib.Unpacked) == 0 || bytes.HasPrefix(lib.Unpacked, []byte{0x1f, 0x8b}) {
		t.Errorf("gzipped library: path %q, %d bytes unpacked", lib.Path, len(lib.Unpacked))
	}

	plain := filepath.Join(t.TempDir(), "cells.lib")
	if err := os.WriteFile(plain, lib.Unpacked, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := packaging.LoadLibrary(plain, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != plain || p.Unpacked != nil || p.FO4PS != lib.FO4PS || p.Inverter != lib.Inverter {
		t.Errorf("plain library: path %q (want %q), %d bytes unpacked, FO4 %v, inverter %s", p.Path, plain, len(p.Unpacked), p.FO4PS, p.Inverter)
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
	lib := loadSky130(t)
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
		if g.unit.Tech != lib.Name || !strings.Contains(sdc, "(lsugen timing --mode sized --liberty LIB, the gate table of\n# "+lib.Name+"): ") {
			t.Errorf("%s: estimate in gate table %q, want %q:\n%s", name, g.unit.Tech, lib.Name, sdc)
		}
		for _, want := range []string{
			fmt.Sprintf("if {![info exists FO4_DELAY]} { set FO4_DELAY %s }\n", strconv.FormatFloat(lib.FO4PS/lib.TimeUnitPS, 'g', 6, 64)),
			fmt.Sprintf("%.2f ps, as lsugen characterize computes it", lib.FO4PS),
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
		if !bytes.Equal(g.files[p], lib.Unpacked) {
			t.Fatalf("%s: Files lacks the unpacked library %s", name, p)
		}

		dir := t.TempDir()
		writeFiles(t, dir, g.files)
		out := runIn(t, dir, y.Path, name+".ys")
		synth, err := os.ReadFile(filepath.Join(dir, name+"_synth.v"))
		if err != nil || !bytes.Contains(synth, []byte("sky130_fd_sc_hd__")) || !strings.Contains(out, "Chip area") {
			t.Fatalf("%s: no netlist in sky130 cells (%v); Yosys:\n%s", name, err, out)
		}

		libPath := filepath.Join(dir, p)
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
