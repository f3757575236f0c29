package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
)

const seqSpec = `elastic_pipeline "p" {
  mem_stages  = 2
  warp_size   = 8
  simd_width  = 4
  shmem_ports = 2
  tag_bits    = 2
  variant     = "elastic"
}
`

// TestGen_FuseSoC: --fusesoc adds NAME.core, NAME.ys and NAME.sdc to the
// two Verilog files of every unit; the cores pass the CAPI2 check.
func TestGen_FuseSoC(t *testing.T) {
	dir := t.TempDir()
	a := writeSpec(t, dir, "a.hcl", goodSpec)
	b := writeSpec(t, dir, "b.hcl", seqSpec)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lsugen(t, "gen", "--fusesoc", "-o", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote 10 files for 2 units") {
		t.Errorf("stdout = %q", stdout)
	}
	var got []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"h.core", "h.sdc", "h.v", "h.ys", "h_gates.v", "p.core", "p.sdc", "p.v", "p.ys", "p_gates.v"}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
	for _, n := range []string{"h", "p"} {
		core, _ := os.ReadFile(filepath.Join(out, n+".core"))
		if err := packaging.CheckCore(core); err != nil {
			t.Errorf("%s.core: %v", n, err)
		}
		if !strings.Contains(string(core), "name: lsugen:units:"+n+":"+gen.Version+"\n") {
			t.Errorf("%s.core has not the default VLNV:\n%s", n, core)
		}
	}
	sdc, _ := os.ReadFile(filepath.Join(out, "p.sdc"))
	if !strings.Contains(string(sdc), "create_clock -name clk") {
		t.Errorf("p.sdc has no clock:\n%s", sdc)
	}
	sdc, _ = os.ReadFile(filepath.Join(out, "h.sdc"))
	if !strings.Contains(string(sdc), "set_max_delay") {
		t.Errorf("h.sdc has no max delay:\n%s", sdc)
	}

	// Without --fusesoc only the Verilog files: nothing else is touched.
	out2 := filepath.Join(dir, "out2")
	if code, _, stderr := lsugen(t, "gen", "-o", out2, a); code != 0 {
		t.Fatal(stderr)
	}
	if entries, _ := os.ReadDir(out2); len(entries) != 2 {
		t.Errorf("%d files without --fusesoc, want 2", len(entries))
	}
}

// TestGen_FuseSoCLiberty: gen --fusesoc --liberty LIB writes SDC and Yosys
// scripts for the library, which they name by its absolute path, unpacked
// beside a gzipped one, with a warning when that file is missing: no
// library is copied. A missing library is bad input, with --fusesoc or
// without (--liberty alone is the library of clocks and timing_mode
// liberty).
func TestGen_FuseSoCLiberty(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec+seqSpec)
	if code, _, stderr := lsugen(t, "gen", "--liberty", filepath.Join(dir, "x.lib"), "-o", filepath.Join(dir, "none"), spec); code != 2 || !strings.Contains(stderr, "x.lib") {
		t.Errorf("a missing library without --fusesoc: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("a run refused for its library wrote its output directory")
	}
	if code, _, stderr := lsugen(t, "gen", "--fusesoc", "--liberty", filepath.Join(dir, "x.lib"), spec); code != 2 || !strings.Contains(stderr, "x.lib") {
		t.Errorf("a missing library: exit %d, %s", code, stderr)
	}
	lib := sky130Lib(t)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lsugen(t, "gen", "--fusesoc", "--liberty", lib, "--json", "-o", out, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateJSON(t, "gen.json", stdout)
	unpacked := strings.TrimSuffix(lib, ".gz")
	if strings.Contains(stdout, ".lib") {
		t.Errorf("a library among the files written:\n%s", stdout)
	}
	if _, err := os.Stat(unpacked); err != nil && !strings.Contains(stderr, "warning: the Yosys scripts name "+unpacked+", which does not exist") {
		t.Errorf("no warning that %s is missing:\n%s", unpacked, stderr)
	}
	for _, f := range []string{"h.sdc", "p.sdc"} {
		b, _ := os.ReadFile(filepath.Join(out, f))
		if !strings.Contains(string(b), "# Library: sky130_fd_sc_hd__tt_025C_1v80.") {
			t.Errorf("%s does not target the library:\n%.600s", f, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "p.ys")); !strings.Contains(string(b), "dfflibmap -liberty "+unpacked+"\n") {
		t.Errorf("p.ys does not map onto the library by its path:\n%s", b)
	}
	if libs, _ := filepath.Glob(filepath.Join(out, "*.lib")); len(libs) > 0 {
		t.Errorf("library copies written: %v", libs)
	}
}
