package flow

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

func writeSpec(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallSpec = `coalescer "c" {
  structure = "all_to_all"
  lanes     = 4
  addr_bits = 8
}
hash "h" {
  function  = "mod"
  addr_bits = 8
  banks     = 3
}
bank_arbiter "a" {
  lanes     = 2
  addr_bits = 8
  hash      = hash.h
}
`

// TestLoad_Errors: each way a session fails gives its error, and the
// diagnostics to print come back with the loader that renders them.
func TestLoad_Errors(t *testing.T) {
	if _, err := Load(nil, Options{}); !errors.Is(err, ErrNoSpecs) {
		t.Errorf("no paths: %v, want ErrNoSpecs", err)
	}
	bad := writeSpec(t, "bad.hcl", `coalescer "c" { lanes = "x" }`)
	s, err := Load([]string{bad}, Options{})
	if !errors.Is(err, ErrInvalid) || s == nil || !s.Diags.HasErrors() || len(s.Units) != 0 || s.Loader.Files()[bad] == nil {
		t.Errorf("invalid spec: err %v, session %+v; want ErrInvalid with error diagnostics and the loader", err, s)
	}
	empty := writeSpec(t, "empty.hcl", "")
	if _, err := Load([]string{empty}, Options{}); !errors.Is(err, ErrNoUnits) {
		t.Errorf("empty spec: %v, want ErrNoUnits", err)
	}
	ok := writeSpec(t, "ok.hcl", smallSpec)
	if _, err := Load([]string{ok}, Options{Gates: 1}); err == nil || !strings.Contains(err.Error(), "over the budget of 1 gates (--gate-budget") {
		t.Errorf("past the gate budget: %v", err)
	}
	if _, err := Load([]string{ok}, Options{Clock: specs.Clocking{ClockFO4: 1}}); err == nil || !strings.Contains(err.Error(), "--clock-fo4 1: want a period") {
		t.Errorf("clock out of range: %v", err)
	}
	var nu *NoUnitError
	if _, err := Load([]string{ok}, Options{Unit: "nope"}); !errors.As(err, &nu) || strings.Join(nu.Units, ",") != "c,h,a" {
		t.Errorf("unknown unit: %v (%+v), want a NoUnitError listing c,h,a", err, nu)
	}
}

// TestLoad_ClockAndSubunits: a clock override pipelines the combinational
// units but the hash that the arbiter instantiates; Options.Unit generates
// only that unit; WithSubunits adds the arbiter's hash once.
func TestLoad_ClockAndSubunits(t *testing.T) {
	p := writeSpec(t, "ok.hcl", smallSpec)
	s, err := Load([]string{p}, Options{Clock: specs.Clocking{ClockFO4: 40}})
	if err != nil {
		t.Fatal(err)
	}
	clocked := map[string]bool{}
	for _, u := range s.Units {
		clocked[u.Design.Name] = u.Design.Clock != ""
	}
	if want := map[string]bool{"c": true, "h": false, "a": true}; len(clocked) != 3 || clocked["c"] != want["c"] || clocked["h"] != want["h"] || clocked["a"] != want["a"] {
		t.Errorf("clocked units %v, want %v", clocked, want)
	}
	if n := len(s.WithSubunits()); n != 3 {
		t.Errorf("the session with its sub-units: %d units, want 3 (h is among them already)", n)
	}
	one, err := Load([]string{p}, Options{Unit: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Units) != 1 || one.Units[0].Design.Name != "a" || one.Units[0].Design.Clock != "" {
		t.Fatalf("Unit a: %d units, want the combinational a", len(one.Units))
	}
	var names []string
	for _, u := range WithSubunits(append(one.Units, one.Units...)) {
		names = append(names, u.Design.Name)
	}
	if got := strings.Join(names, ","); got != "a,a,h" {
		t.Errorf("WithSubunits: %s, want a,a,h", got)
	}
}

// TestExamples_OnceAndNamedFromRoot: the example sessions are built once
// and shared, one per specs/*.hcl file, their units' sources named
// specs/FILE.hcl as from the module root.
func TestExamples_OnceAndNamedFromRoot(t *testing.T) {
	a, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Examples()
	if len(a) == 0 || &a[0] != &b[0] {
		t.Fatal("Examples built twice or empty")
	}
	files, _ := filepath.Glob("../specs/*.hcl")
	if len(a) != len(files) {
		t.Errorf("%d example sessions, want one per file (%d)", len(a), len(files))
	}
	us, _ := ExampleUnits()
	for _, u := range us {
		if src := u.Source(); !strings.HasPrefix(src, "specs/") || u.Design == nil {
			t.Errorf("unit %s: source %q, want specs/FILE.hcl:LINE", u.Spec.UnitName(), src)
		}
	}
	if len(us) < 50 {
		t.Errorf("%d example units, want all of them", len(us))
	}
	names := map[string]bool{}
	for _, u := range us {
		if names[u.Design.Name] {
			t.Errorf("two example units are named %s", u.Design.Name)
		}
		names[u.Design.Name] = true
	}
	if u, err := ExampleUnit("atomic_xor"); err != nil || u.Source() != "specs/hash_atomics.hcl:"+strconv.Itoa(u.Spec.DeclRange().Start.Line) {
		t.Errorf("ExampleUnit(atomic_xor): %v, %v", u.Source(), err)
	}
	if _, err := ExampleUnit("nope"); err == nil {
		t.Error("ExampleUnit(nope): no error")
	}
}

// TestSelect_Patterns: glob patterns keep spec order and may repeat; a
// pattern that matches nothing, or a bad one, names the units.
func TestSelect_Patterns(t *testing.T) {
	s, err := Load([]string{writeSpec(t, "ok.hcl", smallSpec)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		patterns []string
		want     string
	}{
		{nil, "c, h, a"},
		{[]string{"a", "c"}, "c, a"},
		{[]string{"[ah]", "*"}, "c, h, a"},
	} {
		sel, err := Select(s.Units, c.patterns)
		if err != nil || Names(sel) != c.want {
			t.Errorf("%v: %q, %v; want %q", c.patterns, Names(sel), err, c.want)
		}
	}
	for pat, want := range map[string]string{
		"z*": `no unit matches "z*" (units: c, h, a)`,
		"z":  `no unit "z" in the specs (units: c, h, a)`,
		"[":  `--unit "[": syntax error in pattern`,
	} {
		if _, err := Select(s.Units, []string{"c", pat}); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", pat, err, want)
		}
	}
}

// TestLoad_UnitPatterns: Options.Units generates only the matching units
// (checked against the budget alone); an unknown name suggests the
// nearest one, as Options.Unit's NoUnitError does.
func TestLoad_UnitPatterns(t *testing.T) {
	p := writeSpec(t, "ok.hcl", smallSpec)
	s, err := Load([]string{p}, Options{Units: []string{"h"}})
	if err != nil || Names(s.Units) != "h" {
		t.Fatalf("--unit h: %v", err)
	}
	if _, err := Load([]string{p}, Options{Units: []string{"hh"}}); err == nil || !strings.Contains(err.Error(), `Did you mean "h"?`) {
		t.Errorf("--unit hh: %v, want a suggestion", err)
	}
	if _, err := Load([]string{p}, Options{Unit: "cc"}); err == nil || err.Error() != `no unit cc in the specs. Did you mean "c"?` {
		t.Errorf("Unit cc: %v, want a suggestion", err)
	}
}

// TestLoad_PipeliningWork: every unit is generated before any is
// pipelined, and Options.Pipelining sees the run's pipelinings (a spec's
// clock_fo4 and the override's) estimated before the first: an error
// from it refuses the run with no units; otherwise its function counts
// each pipelining. A run that pipelines nothing is announced with zero.
func TestLoad_PipeliningWork(t *testing.T) {
	spec := writeSpec(t, "clocked.hcl", smallSpec+`coalescer "c_at_20" {
  structure = "all_to_all"
  lanes     = 8
  addr_bits = 16
  clock_fo4 = 20
  timing_mode = "sized"
}
`)
	var got []PipelineWork
	steps := 0
	hook := func(w PipelineWork) (func(), error) {
		got = append(got, w)
		return func() { steps++ }, nil
	}
	// The override pipelines c and a, not h, which a instantiates.
	s, err := Load([]string{spec}, Options{Clock: specs.Clocking{ClockFO4: 20}, Pipelining: hook})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("Pipelining called %d times, want once", len(got))
	}
	w := got[0]
	piped := 0
	for _, u := range s.Units {
		if u.Design.Pipeline != nil {
			piped++
		}
	}
	if w.Pipelinings != piped || steps != piped || piped != 3 {
		t.Errorf("estimated %d pipelinings, counted %d, built %d; want 3 (c, a and c_at_20; h is instantiated by a)", w.Pipelinings, steps, piped)
	}
	var names []string
	for _, c := range w.Largest {
		if c.CPU <= 0 || c.Gates == 0 || c.DelayFO4 <= 0 || c.PeriodFO4 != 20 {
			t.Errorf("%+v: want its gates, critical path, period and estimate", c)
		}
		names = append(names, c.Unit)
	}
	if slices.Sort(names); w.CPU <= 0 || strings.Join(names, " ") != "a c c_at_20" {
		t.Errorf("estimate %+v: want a CPU time and the three pipelinings named", w)
	}

	refuse := errors.New("over budget")
	s, err = Load([]string{spec}, Options{Pipelining: func(w PipelineWork) (func(), error) { return nil, refuse }})
	if !errors.Is(err, refuse) || s == nil || len(s.Units) != 0 {
		t.Errorf("refused by the hook: err %v, session %+v; want its error and no units", err, s)
	}

	plain := writeSpec(t, "plain.hcl", smallSpec)
	got = nil
	if _, err := Load([]string{plain}, Options{Pipelining: hook}); err != nil || len(got) != 1 || got[0].Pipelinings != 0 || got[0].CPU != 0 {
		t.Errorf("no pipelining: err %v, calls %+v; want one call with nothing to pipeline", err, got)
	}
}
