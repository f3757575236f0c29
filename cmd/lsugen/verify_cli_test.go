package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/verify"
)

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// threeUnits declares three small hashes: hx_a, hx_b and other.
func threeUnits(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"hx_a", "hx_b", "other"} {
		b.WriteString(strings.Replace(goodSpec, `hash "h"`, `hash "`+name+`"`, 1))
	}
	return writeSpec(t, dir, "three.hcl", b.String())
}

// verifyJSON runs lsugen verify --json and decodes its document.
func verifyJSON(t *testing.T, args ...string) (int, verifyReport, string) {
	t.Helper()
	code, stdout, stderr := lsugen(t, append([]string{"verify", "--json"}, args...)...)
	var rep verifyReport
	if code != 2 {
		validateJSON(t, "verify.json", stdout)
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v: exit %d, stdout is not one JSON document: %v\n%s\nstderr:\n%s", args, code, err, stdout, stderr)
		}
	}
	return code, rep, stderr
}

func unitNames(rep verifyReport) string {
	var names []string
	for _, u := range rep.Units {
		names = append(names, u.Name)
	}
	return strings.Join(names, " ")
}

// TestVerify_UnitFilter: --unit takes glob patterns, may be repeated, keeps
// spec order, and a pattern matching no unit is a usage error naming the
// units, in every mode.
func TestVerify_UnitFilter(t *testing.T) {
	dir := t.TempDir()
	spec := threeUnits(t, dir)
	for _, c := range []struct {
		units []string
		want  string
	}{
		{nil, "hx_a hx_b other"},
		{[]string{"hx_*"}, "hx_a hx_b"},
		{[]string{"other", "hx_b"}, "hx_b other"},
		{[]string{"*", "hx_?"}, "hx_a hx_b other"},
		{[]string{"[ho]*_b"}, "hx_b"},
	} {
		args := []string{"--sim", "netlist"}
		for _, u := range c.units {
			args = append(args, "--unit", u)
		}
		code, rep, stderr := verifyJSON(t, append(args, spec)...)
		if code != 0 || unitNames(rep) != c.want {
			t.Errorf("--unit %v: exit %d, units %q, want %q\n%s", c.units, code, unitNames(rep), c.want, stderr)
		}
	}
	v := writeSpec(t, dir, "h.v", "module hx_a (input wire [9:0] addr_i, output wire [4:0] bank_o);\nendmodule\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--unit", "zz*"}, `no unit matches "zz*" (units: hx_a, hx_b, other)`},
		{[]string{"--unit", "hx_a", "--unit", "nope"}, `no unit "nope" in the specs (units: hx_a, hx_b, other)`},
		{[]string{"--unit", "["}, `--unit "[": syntax error in pattern`},
		{[]string{"--formal", "--unit", "zz*"}, `no unit matches "zz*"`},
		{[]string{"--rtl", v, "--unit", "zz*"}, `no unit matches "zz*"`},
		{[]string{"--rtl", v}, "the specs declare 3 units: choose one with --unit (hx_a, hx_b, other)"},
	} {
		code, stdout, stderr := lsugen(t, append(append([]string{"verify"}, c.args...), spec)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestVerify_LinesAndSummary: a line per check, then the table of units by
// engines and the verdict.
func TestVerify_LinesAndSummary(t *testing.T) {
	spec := threeUnits(t, t.TempDir())
	code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist", "--jobs", "2", "--unit", "hx_*", spec)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := []string{`^hx_[ab] +netlist +PASS +\S+  1024 vectors, exhaustive$`, `^hx_[ab] +netlist +PASS `, `^$`,
		`^unit +netlist$`, `^hx_a +pass +1024 +\S+$`, `^hx_b +pass +1024 +\S+$`,
		`^2 checks: 2 passed, 0 failed, 0 could not run, 0 skipped; \S+$`, `^verified 2 units: model = netlist$`}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), stdout)
	}
	for i, re := range want {
		if !regexpMatch(re, lines[i]) {
			t.Errorf("line %d %q does not match %s", i+1, lines[i], re)
		}
	}
}

// TestVerify_JSONAndJUnit: a check that cannot run (Verilator missing) is
// an error beside the passing ones, in the JSON document and in the JUnit
// file, and the exit status is 1.
func TestVerify_JSONAndJUnit(t *testing.T) {
	t.Setenv("LSUGEN_VERILATOR", "/nonexistent/verilator")
	dir := t.TempDir()
	spec := threeUnits(t, dir)
	junitFile := filepath.Join(dir, "reports", "verify.xml")
	if err := os.MkdirAll(filepath.Dir(junitFile), 0o755); err != nil {
		t.Fatal(err)
	}
	code, rep, stderr := verifyJSON(t, "--sim", "netlist,verilator", "--unit", "hx_*", "--junit", junitFile, spec)
	if code != 1 || !strings.Contains(stderr, "apt-get install verilator") || !strings.Contains(stderr, "FAILED; work directory kept") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	// The lines go to stderr with --json.
	if !regexpMatch(`(?m)^hx_a +netlist +PASS `, stderr) || !regexpMatch(`(?m)^hx_b +verilator +ERROR `, stderr) {
		t.Errorf("stderr lacks the check lines:\n%s", stderr)
	}
	if rep.Version != gen.Version || rep.Mode != "simulation" || strings.Join(rep.Engines, ",") != "netlist,verilator" ||
		rep.Passed || rep.Work == "" || rep.Seconds < 0 {
		t.Errorf("report header %+v", rep)
	}
	if c := rep.Checks; c != (verifyCounts{Total: 4, Passed: 2, Errors: 2}) {
		t.Errorf("checks %+v", c)
	}
	if unitNames(rep) != "hx_a hx_b" {
		t.Fatalf("units %q", unitNames(rep))
	}
	for _, u := range rep.Units {
		if u.Clocked || u.Coverage != "exhaustive" || !strings.HasSuffix(u.Source, "three.hcl:"+map[string]string{"hx_a": "1", "hx_b": "6"}[u.Name]) || len(u.Results) != 2 {
			t.Errorf("unit %+v", u)
			continue
		}
		n, v := u.Results[0], u.Results[1]
		if n.Engine != "netlist" || n.Status != "pass" || n.Vectors != 1024 || n.Seconds < 0 || n.Mismatch != nil || n.Failure != "" || n.Error != "" {
			t.Errorf("%s netlist %+v", u.Name, n)
		}
		if v.Engine != "verilator" || v.Status != "error" || !strings.Contains(v.Error, "apt-get install verilator") {
			t.Errorf("%s verilator %+v", u.Name, v)
		}
	}

	b, err := os.ReadFile(junitFile)
	if err != nil {
		t.Fatal(err)
	}
	suites := parseJUnit(t, b)
	s := suites.Suites[0]
	if s.Name != "lsugen verify" || s.Tests != 4 || s.Failures != 0 || s.Errors != 2 || s.Skipped != 0 {
		t.Errorf("testsuite %s: tests %d, failures %d, errors %d, skipped %d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped)
	}
	var got []string
	for _, tc := range s.Cases {
		got = append(got, tc.Classname+"/"+tc.Name)
		if tc.Name == "verilator" && (tc.Error == nil || !strings.Contains(tc.Error.Message, "verilator") || !strings.Contains(tc.Error.Text, "apt-get install verilator")) {
			t.Errorf("%s/%s: error %+v", tc.Classname, tc.Name, tc.Error)
		}
	}
	if strings.Join(got, " ") != "hx_a/netlist hx_a/verilator hx_b/netlist hx_b/verilator" {
		t.Errorf("testcases %v", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(junitFile)); len(entries) != 1 {
		t.Errorf("%d files beside the JUnit file, want none (no temporaries)", len(entries)-1)
	}
}

// TestVerify_FailureReports: a hand-broken module fails verify --rtl under
// Icarus: a fail result with the testbench's failure text in the JSON
// document, a <failure type="mismatch"> in the JUnit file.
func TestVerify_FailureReports(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	broken := writeSpec(t, dir, "h.v", "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
		"    assign bank_o = addr_i[4:0] | addr_i[9:5];\nendmodule\n")
	junitFile := filepath.Join(dir, "verify.xml")
	code, rep, stderr := verifyJSON(t, "--rtl", broken, "--sim", "icarus", "--junit", junitFile, spec)
	if code != 1 || len(rep.Units) != 1 || len(rep.Units[0].Results) != 1 {
		t.Fatalf("exit %d, %+v\n%s", code, rep, stderr)
	}
	u, r := rep.Units[0], rep.Units[0].Results[0]
	if rep.Mode != "rtl" || u.Module != "h" || r.Engine != "icarus" || r.Status != "fail" || !strings.Contains(r.Failure, "bank_o expected") {
		t.Errorf("unit %+v", u)
	}
	b, err := os.ReadFile(junitFile)
	if err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, b).Suites[0]
	if s.Tests != 1 || s.Failures != 1 || s.Errors != 0 {
		t.Errorf("tests %d, failures %d, errors %d", s.Tests, s.Failures, s.Errors)
	}
	f := s.Cases[0].Failure
	if f == nil || f.Type != "mismatch" || !strings.Contains(f.Message, "bank_o expected") || !strings.Contains(f.Text, "bank_o expected") {
		t.Errorf("failure %+v", f)
	}
}

// TestVerify_SimulationMismatchReport: a simulation mismatch carries its
// fields into the JSON result, the line and the JUnit failure; an
// interrupted check is skipped.
func TestVerify_SimulationMismatchReport(t *testing.T) {
	mm := &verify.Mismatch{Module: "h_gates", Vector: 33, Inputs: "addr_i=10'h021", Port: "bank_o",
		Expected: "5'h00", Actual: "5'h01", VCD: "/work/h/h_gates_icarus.vcd"}
	fail, detail := simResult(verify.Outcome{Unit: "h", Engine: verify.Icarus, Vectors: 1024, Coverage: "exhaustive",
		Check: verify.Check{Engine: verify.Icarus, Vectors: 1024, Elapsed: 12 * time.Millisecond, Mismatch: mm}}, false)
	if detail != "" || fail.Status != "fail" || fail.Seconds != 0.012 ||
		*fail.Mismatch != (verifyMismatch{Module: "h_gates", Vector: 33, Inputs: "addr_i=10'h021", Port: "bank_o", Expected: "5'h00", Actual: "5'h01", VCD: "/work/h/h_gates_icarus.vcd"}) ||
		fail.Failure != mm.String() {
		t.Errorf("fail %+v", fail)
	}
	skipped, _ := simResult(verify.Outcome{Engine: verify.Verilator, Err: errors.New("context canceled")}, true)
	if skipped.Status != "skipped" || skipped.Error != "interrupted" {
		t.Errorf("skipped %+v", skipped)
	}
	u := verifyUnit{Name: "h", Coverage: "exhaustive", Results: []verifyResult{fail, skipped}}
	if line := resultLine(modeSimulation, &u, fail); !regexpMatch(`^h +icarus +FAIL +12ms  1024 vectors, exhaustive: module h_gates, vector 33 \(addr_i=10'h021\): bank_o expected 5'h00, got 5'h01; waveform in /work/h/h_gates_icarus.vcd$`, line) {
		t.Errorf("line %q", line)
	}
	rep := &verifyReport{Mode: modeSimulation, Engines: []string{"icarus", "verilator"}, Units: []verifyUnit{u}}
	rep.count()
	b, err := rep.junit()
	if err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, b).Suites[0]
	if s.Tests != 2 || s.Failures != 1 || s.Skipped != 1 || s.Cases[1].Skipped == nil || !strings.Contains(s.Cases[0].Failure.Text, "h_gates_icarus.vcd") {
		t.Errorf("JUnit:\n%s", b)
	}
}

// TestVerify_ProgressLine: on a terminal a progress line is drawn on
// stderr, cleared before each result line and at the end.
func TestVerify_ProgressLine(t *testing.T) {
	rep := &verifyReport{Mode: modeSimulation, Engines: []string{"netlist", "icarus"},
		Units: []verifyUnit{{Name: "h", Coverage: "exhaustive", Results: []verifyResult{{Engine: "netlist"}, {Engine: "icarus"}}}}}
	var lines, tty bytes.Buffer
	p := newVerifyPrinter(rep, &lines, &tty, true)
	p.started(0, "netlist")
	p.started(0, "icarus")
	p.finished(0, verifyResult{Engine: "netlist", Status: statusPass, Vectors: 1024}, "exhaustive", "")
	p.close()
	want := "\r\033[Kverify: 0/2 done, running: h/netlist 0:00" +
		"\r\033[Kverify: 0/2 done, running: h/netlist 0:00 (+1 more)" +
		"\r\033[K" + // cleared for the line
		"\r\033[Kverify: 1/2 done, running: h/icarus 0:00" +
		"\r\033[K" // cleared at the end
	if tty.String() != want {
		t.Errorf("terminal %q\nwant     %q", tty.String(), want)
	}
	if !regexpMatch(`^h +netlist +PASS +\S+  1024 vectors, exhaustive\n$`, lines.String()) {
		t.Errorf("lines %q", lines.String())
	}
}

// junitDoc is JUnit XML as a CI system reads it, declared apart from the
// writer's types.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Classname string        `xml:"classname,attr"`
			Name      string        `xml:"name,attr"`
			Time      string        `xml:"time,attr"`
			Failure   *junitElement `xml:"failure"`
			Error     *junitElement `xml:"error"`
			Skipped   *junitElement `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitElement struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// parseJUnit reads a JUnit file and checks its conventions: one suite
// whose counts are those of its test cases, with the suites' totals, times
// in seconds, a classname and name on every case and at most one outcome
// element each, and lsugen's version among the properties.
func parseJUnit(t *testing.T, b []byte) junitDoc {
	t.Helper()
	if !bytes.HasPrefix(b, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML declaration:\n%.200s", b)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	failures, errs, skipped := 0, 0, 0
	var sum float64
	for _, tc := range s.Cases {
		n := 0
		if tc.Failure != nil {
			failures, n = failures+1, n+1
			if tc.Failure.Type != "mismatch" || tc.Failure.Message == "" || tc.Failure.Text == "" {
				t.Errorf("%s/%s: failure %+v", tc.Classname, tc.Name, tc.Failure)
			}
		}
		if tc.Error != nil {
			errs, n = errs+1, n+1
			if tc.Error.Message == "" {
				t.Errorf("%s/%s: error without a message", tc.Classname, tc.Name)
			}
		}
		if tc.Skipped != nil {
			skipped, n = skipped+1, n+1
		}
		if n > 1 || tc.Classname == "" || tc.Name == "" {
			t.Errorf("testcase %+v", tc)
		}
		sec, err := strconv.ParseFloat(tc.Time, 64)
		if err != nil || sec < 0 {
			t.Errorf("%s/%s: time %q", tc.Classname, tc.Name, tc.Time)
		}
		sum += sec
	}
	if s.Tests != len(s.Cases) || s.Failures != failures || s.Errors != errs || s.Skipped != skipped {
		t.Errorf("testsuite counts tests %d, failures %d, errors %d, skipped %d; the cases: %d, %d, %d, %d",
			s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), failures, errs, skipped)
	}
	if doc.Tests != s.Tests || doc.Failures != s.Failures || doc.Errors != s.Errors || doc.Time != s.Time {
		t.Errorf("testsuites totals differ from the suite's")
	}
	if sec, err := strconv.ParseFloat(s.Time, 64); err != nil || sec < 0 {
		t.Errorf("testsuite time %q", s.Time)
	}
	version := ""
	for _, p := range s.Properties {
		if p.Name == "lsugen.version" {
			version = p.Value
		}
	}
	if version != gen.Version {
		t.Errorf("lsugen.version property %q", version)
	}
	return doc
}
