package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// childEnv makes TestChild lsugen itself: childCommand runs this test
// binary as `env LSUGEN_TEST_CHILD=1 BINARY -test.run=^TestChild$ -- ARGS`.
const childEnv = "LSUGEN_TEST_CHILD"

// TestChild is lsugen when childCommand's command runs this binary;
// otherwise it does nothing.
func TestChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		return
	}
	os.Exit(run(flag.Args(), os.Stdout, os.Stderr))
}

// childCommand is a shell command, to be followed by lsugen's arguments,
// that runs this test binary as lsugen: for tests of what runs lsugen as
// a program (job lists, FuseSoC's generator), without building it again.
func childCommand(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "env " + childEnv + "=1 " + shellQuote(exe) + " '-test.run=^TestChild$' --"
}

func lsugen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func writeSpec(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodSpec = `hash "h" {
  function  = "fixed_xor"
  addr_bits = 10
  bank_bits = 5
}
`

// TestGen_WritesBothFiles: one RTL and one gate file per unit.
func TestGen_WritesBothFiles(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lsugen(t, "gen", "-o", out, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"h.v", "h_gates.v"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "module h") {
			t.Errorf("%s has no module", f)
		}
	}
	if !strings.Contains(stdout, "wrote 2 files for 1 units") {
		t.Errorf("stdout = %q", stdout)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("%d entries in the output directory, want 2 (no temporaries)", len(entries))
	}
}

// TestGen_FailedRunKeepsEarlierOutputs: a spec error is printed with its
// position and snippet, and nothing in the output directory changes.
func TestGen_FailedRunKeepsEarlierOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	good := writeSpec(t, dir, "a.hcl", goodSpec)
	if code, _, stderr := lsugen(t, "gen", "-o", out, good); code != 0 {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "h.v"))
	bad := writeSpec(t, dir, "b.hcl", strings.Replace(goodSpec, "bank_bits = 5", "bank_bits = 6", 1)+`hash "h2" {
  function  = "bitvector_perm"
  addr_bits = 10
  bank_bits = 5
  k         = 7
}
`)
	code, _, stderr := lsugen(t, "gen", "-o", out, bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (an invalid spec)", code)
	}
	if !strings.Contains(stderr, "b.hcl line 10") || !strings.Contains(stderr, "k         = 7") ||
		!strings.Contains(stderr, "b.hcl:10:15: error: Invalid k") {
		t.Errorf("diagnostic lacks position or snippet:\n%s", stderr)
	}
	after, _ := os.ReadFile(filepath.Join(out, "h.v"))
	if !bytes.Equal(before, after) {
		t.Error("a failed run changed an earlier output")
	}
	if _, err := os.Stat(filepath.Join(out, "h2.v")); !os.IsNotExist(err) {
		t.Error("a failed run wrote a file")
	}
}

// TestTiming_JSON: the documented JSON shape.
func TestTiming_JSON(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, stdout, stderr := lsugen(t, "timing", "--json", "--timing-mode", "unsized", spec)
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc struct {
		Units []struct {
			Name         string           `json:"name"`
			Kind         string           `json:"kind"`
			FO4          float64          `json:"fo4"`
			AreaGE       float64          `json:"area_ge"`
			Transistors  int              `json:"transistors"`
			CriticalPath []map[string]any `json:"critical_path"`
		} `json:"units"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Units) != 1 {
		t.Fatalf("%d units", len(doc.Units))
	}
	u := doc.Units[0]
	// Five XOR2s of 12 transistors; the path is the input driver and one XOR2.
	if u.Name != "h" || u.Kind != "hash" || u.Transistors != 60 || len(u.CriticalPath) != 2 || u.FO4 <= 0 || u.AreaGE <= 0 {
		t.Errorf("unexpected report %+v", u)
	}
}

// TestTiming_NoWire: with free wires the fixed XOR hash is the textbook
// figure, a unit inverter driving one XOR2 pin (4 + 1 τ) then the XOR2
// into the unit output load (1 + 4 τ): 10τ = 2 FO4.
func TestTiming_NoWire(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, stdout, stderr := lsugen(t, "timing", "--json", "--no-wire", spec)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, `"fo4": 2,`) || !strings.Contains(stdout, `"tau_per_fo4": 5,`) {
		t.Errorf("--no-wire: want 2 FO4 at 5 tau per FO4:\n%s", stdout)
	}
}

// TestVerify_MissingSimulator names the install command and fails.
func TestVerify_MissingSimulator(t *testing.T) {
	t.Setenv("LSUGEN_VERILATOR", "/nonexistent/verilator")
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, _, stderr := lsugen(t, "verify", "--sim", "verilator", spec)
	if code != 1 || !strings.Contains(stderr, "apt-get install verilator") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestVerify_Passes runs the whole check on a small spec.
func TestVerify_Passes(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, stdout, stderr := lsugen(t, "verify", spec, "--sim", "netlist,icarus")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "verified 1 units: model = netlist = icarus") {
		t.Errorf("stdout = %q", stdout)
	}
}

func TestUsage_UnknownCommand(t *testing.T) {
	if code, _, stderr := lsugen(t, "frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
