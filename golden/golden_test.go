// Package golden holds the golden files of every example spec: the RTL and
// gate-level Verilog (golden/rtl), the timing report (golden/timing), and
// each unit's golden vectors and standalone testbench (golden/vectors), as
// `lsugen gen --tb` writes them. `make golden` refreshes them; review their
// diffs as code: a change of a vector file is a change of behaviour.
package golden

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/internal/testenv"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

type unit struct {
	spec   specs.Unit
	design *netlist.Design
	// variable is the composer's measure of a variable-latency unit.
	variable *compose.Timing
}

// generate loads one spec file and generates its units, as `lsugen gen`
// does when run from the repository root.
func generate(t testing.TB, path string) []unit {
	t.Helper()
	// As lsugen gen does: through the flow, which converts clocks in time
	// units.
	s, err := flow.Load([]string{path}, flow.DefaultOptions(true))
	if errors.Is(err, flow.ErrNoUnits) {
		return nil // a file of patterns only
	}
	if err != nil {
		if s != nil {
			t.Fatalf("%s: %v: %s", path, err, s.Diags.Error())
		}
		t.Fatalf("%s: %v", path, err)
	}
	var us []unit
	for _, u := range s.Units {
		us = append(us, unit{u.Spec, u.Design, u.Variable})
	}
	return us
}

// example is one example spec file's units, generated once per test
// binary (flow.Examples) and shared: read, never modified.
type example struct {
	path  string
	units []unit
}

// examples are the example spec files, as `lsugen gen` generates them
// when run from the repository root.
func examples(t testing.TB) []example {
	t.Helper()
	ss, err := flow.Examples()
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, s := range ss {
		ex := example{path: s.Paths[0]}
		for _, u := range s.Units {
			ex.units = append(ex.units, unit{u.Spec, u.Design, u.Variable})
		}
		out = append(out, ex)
	}
	return out
}

func info(u specs.Unit) rtl.Info {
	r := u.DeclRange()
	return rtl.Info{Version: "lsugen " + gen.Version, Source: filepath.ToSlash(r.Filename) + ":" + strconv.Itoa(r.Start.Line)}
}

func report(t testing.TB, us []unit) []byte {
	t.Helper()
	rep := &timing.Report{}
	for _, u := range us {
		ur, err := timing.NewUnitReport(u.design.Name, u.spec.UnitKind(), u.spec.Variant(), u.design, u.variable.Report(), timing.DefaultReportOptions())
		if err != nil {
			t.Fatal(err)
		}
		rep.Units = append(rep.Units, ur)
	}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// maxGoldenBytes is the largest generated file kept verbatim in golden/.
const maxGoldenBytes = 1 << 20

// TestGolden_Specs compares the Verilog and timing of every example spec
// with the golden files.
func TestGolden_Specs(t *testing.T) {
	t.Chdir("..") // headers name specs/FILE.hcl, as `make run` writes them
	gv := goldie.New(t, goldie.WithFixtureDir("golden/rtl"), goldie.WithNameSuffix(".golden"))
	gt := goldie.New(t, goldie.WithFixtureDir("golden/timing"), goldie.WithNameSuffix(".json.golden"))
	want := map[string]bool{} // every golden file this test asserts
	defer func() { checkNoStale(t, want, "golden/rtl", "golden/timing") }()
	for _, ex := range examples(t) {
		path, us := ex.path, ex.units
		if len(us) == 0 {
			continue // a file of pattern blocks only: no hardware, no golden
		}
		for _, u := range us {
			files, err := rtl.Files(u.design, info(u.spec))
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range files {
				if len(b) > maxGoldenBytes {
					// Too large to review as a diff: keep its digest; the
					// cell counts are in the timing golden.
					sum := sha256.Sum256(b)
					gv.Assert(t, name+".sha256", []byte(fmt.Sprintf("%x  %s (%d bytes)\n", sum, name, len(b))))
					want["golden/rtl/"+name+".sha256.golden"] = true
					continue
				}
				gv.Assert(t, name, b)
				want["golden/rtl/"+name+".golden"] = true
			}
		}
		base := strings.TrimSuffix(filepath.Base(path), ".hcl")
		gt.Assert(t, base, report(t, us))
		want["golden/timing/"+base+".json.golden"] = true
	}
}

// checkNoStale fails on golden files in dirs that no spec produces any
// more (goldie's -update writes files but never removes them).
func checkNoStale(t *testing.T, want map[string]bool, dirs ...string) {
	for _, dir := range dirs {
		files, _ := filepath.Glob(dir + "/*.golden")
		for _, f := range files {
			if !want[filepath.ToSlash(f)] {
				t.Errorf("stale golden file %s: no spec produces it; delete it", f)
			}
		}
	}
}

// testbenchFiles renders a unit's golden vector file and standalone
// testbench, as `lsugen gen --tb` does.
func testbenchFiles(t testing.TB, u unit) map[string][]byte {
	t.Helper()
	g, err := units.Golden(u.spec, units.Built{Design: u.design, Variable: u.variable})
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		verify.VectorFileName(u.design):    g.VectorFile(info(u.spec)),
		verify.TestbenchFileName(u.design): g.Testbench(info(u.spec)),
	}
}

// maxVectorBytes bounds one golden vector file kept verbatim, and
// maxVectorDirBytes all of golden/vectors: reviewable diffs, a small
// repository. A larger vector file (an exhaustive one of 2^18 lines and
// up) is kept as its digest (vectorDigest).
const (
	maxVectorBytes    = 256 << 10
	maxVectorDirBytes = 11 << 20
	digestEnds        = 32 // vectors kept from each end of a digested file
)

// vectorDigest stands for a vector file too large to review line by line:
// its SHA-256, size and line count, its comment header (columns, count,
// coverage) and its first and last digestEnds vectors, so that a diff
// still shows a change of columns, count, order or values at either end.
func vectorDigest(name string, b []byte) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var header, data []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#") && len(data) == 0 {
			header = append(header, l)
		} else {
			data = append(data, l)
		}
	}
	var d strings.Builder
	fmt.Fprintf(&d, "%s: %d bytes, %d lines, %d vectors; sha256 %x\n", name, len(b), len(lines), len(data), sha256.Sum256(b))
	fmt.Fprintf(&d, "--- header\n%s", strings.Join(header, ""))
	if len(data) <= 2*digestEnds {
		fmt.Fprintf(&d, "--- all %d vectors\n%s", len(data), strings.Join(data, ""))
		return []byte(d.String())
	}
	fmt.Fprintf(&d, "--- first %d vectors\n%s", digestEnds, strings.Join(data[:digestEnds], ""))
	fmt.Fprintf(&d, "--- %d vectors left out\n", len(data)-2*digestEnds)
	fmt.Fprintf(&d, "--- last %d vectors\n%s", digestEnds, strings.Join(data[len(data)-digestEnds:], ""))
	return []byte(d.String())
}

// TestGolden_Vectors compares every example unit's golden vectors and
// standalone testbench with golden/vectors.
func TestGolden_Vectors(t *testing.T) {
	t.Chdir("..")
	gv := goldie.New(t, goldie.WithFixtureDir("golden/vectors"), goldie.WithNameSuffix(".golden"))
	want := map[string]bool{}
	defer func() { checkNoStale(t, want, "golden/vectors") }()
	total := 0
	for _, ex := range examples(t) {
		for _, u := range ex.units {
			for name, b := range testbenchFiles(t, u) {
				if strings.HasSuffix(name, ".v") {
					checkLineLengths(t, name, b)
				}
				if len(b) > maxVectorBytes {
					if !strings.HasSuffix(name, ".vec") {
						t.Errorf("%s is %d bytes, more than %d", name, len(b), maxVectorBytes)
					}
					name += ".digest"
					b = vectorDigest(strings.TrimSuffix(name, ".digest"), b)
				}
				total += len(b)
				gv.Assert(t, name, b)
				want["golden/vectors/"+name+".golden"] = true
			}
		}
	}
	if total > maxVectorDirBytes {
		t.Errorf("golden/vectors holds %d bytes, more than %d", total, maxVectorDirBytes)
	}
}

// checkLineLengths fails on a line of generated Verilog longer than
// rtl.MaxLineLength (the testbenches here; rtl's own test reads the
// modules).
func checkLineLengths(t *testing.T, name string, b []byte) {
	t.Helper()
	for n, l := range strings.Split(string(b), "\n") {
		if len(l) > rtl.MaxLineLength {
			t.Errorf("%s line %d: %d characters, more than %d: %.80s...", name, n+1, len(l), rtl.MaxLineLength, strings.TrimSpace(l))
			return
		}
	}
}

// TestGolden_Deterministic generates everything again, from a fresh
// load, and requires the bytes of the shared examples (which no test may
// have changed).
func TestGolden_Deterministic(t *testing.T) {
	t.Chdir("..")
	for _, ex := range examples(t) {
		path, a, b := ex.path, ex.units, generate(t, ex.path)
		for i := range a {
			fa, err := rtl.Files(a[i].design, info(a[i].spec))
			if err != nil {
				t.Fatal(err)
			}
			fb, _ := rtl.Files(b[i].design, info(b[i].spec))
			for name := range fa {
				if string(fa[name]) != string(fb[name]) {
					t.Errorf("%s differs between two runs", name)
				}
			}
		}
		if string(report(t, a)) != string(report(t, b)) {
			t.Errorf("%s: timing report differs between two runs", path)
		}
		for i := range a {
			fb := testbenchFiles(t, b[i])
			for name, x := range testbenchFiles(t, a[i]) {
				if string(x) != string(fb[name]) {
					t.Errorf("%s differs between two runs", name)
				}
			}
		}
	}
}

// BenchmarkGenTiming_LargestSpec measures gen + timing of the largest
// example unit (by gate count), as `lsugen timing` runs them.
func BenchmarkGenTiming_LargestSpec(b *testing.B) {
	b.Chdir("..")
	var largest specs.Unit
	most := -1
	for _, ex := range examples(b) {
		for _, u := range ex.units {
			if len(u.design.Gates) > most {
				largest, most = u.spec, len(u.design.Gates)
			}
		}
	}
	b.ReportMetric(float64(most), "gates")
	b.ResetTimer()
	for b.Loop() {
		d, diags := units.Generate(largest)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		if _, err := timing.Analyze(d, timing.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGolden_LintClean runs every example's Verilog (up to maxGoldenBytes)
// and every unit's standalone testbench through `verilator --lint-only
// -Wall` and `iverilog -g2005 -Wall`; any output is a failure. Each tool
// reads one example file's Verilog in one run (each file once, the
// testbenches after the RTL they instantiate), which lints every module as
// a run per file does for a fraction of the tools' start-up: the
// example's units are the tops, so Verilator's MULTITOP, which says only
// that there are several, is off. That each unit's files build alone is
// checked where they are built alone (verify's three-engine and standalone
// tests). A file set linted clean before, unchanged, is not linted again
// (lintClean).
func TestGolden_LintClean(t *testing.T) {
	verilator, err := toolchain.Find("verilator")
	if err != nil {
		t.Fatal(err)
	}
	iverilog, err := toolchain.Find("iverilog")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	for _, ex := range examples(t) {
		dir := t.TempDir()
		var paths []string
		write := func(name string, b []byte) {
			path := filepath.Join(dir, name)
			if slices.Contains(paths, path) {
				return // a sub-unit of two units
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, path)
		}
		for _, u := range ex.units {
			// A unit that instantiates others is linted with their files
			// (rtl.Sources).
			for _, sub := range u.design.Submodules() {
				subFiles, err := rtl.Files(sub, info(u.spec))
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range slices.Sorted(maps.Keys(subFiles)) {
					write(name, subFiles[name])
				}
			}
			files, err := rtl.Files(u.design, info(u.spec))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range slices.Sorted(maps.Keys(files)) {
				if len(files[name]) > maxGoldenBytes {
					continue // linted by `make verify-all`, which builds it with -Wall
				}
				write(name, files[name])
			}
			// The testbench names its module under test by a macro,
			// defined unless given (verify.DUTMacro): undefined after
			// each, so that the next testbench defines its own.
			tb := verify.TestbenchFileName(u.design)
			write(tb, testbenchFiles(t, u)[tb])
			write("undef_after_"+tb, []byte("`undef "+verify.DUTMacro+"\n"))
		}
		if len(paths) == 0 {
			continue // patterns only
		}
		lintClean(t, ex.path, verilator, []string{"--lint-only", "-Wall", "-Wno-MULTITOP", "--timing"}, paths)
		lintClean(t, ex.path, iverilog, []string{"-g2005", "-Wall", "-o", os.DevNull}, paths)
	}
}

// lintClean runs tool with the options and then the files and fails the test
// unless it exits 0 and prints nothing. A clean lint is remembered
// (testenv.Remembered), keyed by the tool's version, the options and the
// files' names and texts: an unchanged file set is not linted again.
func lintClean(t *testing.T, what string, tool *toolchain.Tool, opts, files []string) {
	t.Helper()
	key := &testenv.Key{}
	key.Add(filepath.Base(tool.Path), tool.Version)
	key.Add(opts...)
	if err := key.AddFiles(files...); err != nil {
		t.Fatal(err)
	}
	var err error
	out, clean, _ := testenv.Remembered(toolchain.CacheRoot(), "lint", key, func() ([]byte, bool) {
		var out []byte
		out, err = exec.Command(tool.Path, append(slices.Clone(opts), files...)...).CombinedOutput()
		return out, err == nil && len(out) == 0
	})
	if !clean {
		t.Errorf("%s: %s: %v\n%s", what, filepath.Base(tool.Path), err, out)
	}
}

// BenchmarkGenTiming_AllToAll64 measures gen + timing of the 64-lane
// all-to-all coalescer of 003_* (about 2,000 32-bit comparators).
func BenchmarkGenTiming_AllToAll64(b *testing.B) {
	b.Chdir("..")
	var unit specs.Unit
	for _, u := range generate(b, "specs/coalescer_thesis.hcl") {
		if u.spec.UnitName() == "coalesce_a2a_64" {
			unit = u.spec
		}
	}
	if unit == nil {
		b.Fatal("coalesce_a2a_64 not in specs/coalescer_thesis.hcl")
	}
	for b.Loop() {
		d, diags := units.Generate(unit)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		if _, err := timing.Analyze(d, timing.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
