package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cfgHashSpec = "../../specs/hash_configurable.hcl"

// searchForFile is the part of search --for's -o file the tests read.
type searchForFile struct {
	Unit      string `json:"unit"`
	Registers []struct {
		Key  string `json:"key"`
		Port string `json:"port"`
	} `json:"registers"`
	All     searchForEntry   `json:"all"`
	Kernels []searchForEntry `json:"kernels"`
}

type searchForEntry struct {
	Kernel          string            `json:"kernel"`
	HashConfig      string            `json:"hash_config"`
	Registers       map[string]any    `json:"registers"`
	Ports           map[string]string `json:"ports"`
	ConflictsBefore int64             `json:"conflicts_before"`
	ConflictsAfter  int64             `json:"conflicts_after"`
}

// conflictsUnder is conflicts --json's total bank conflicts of inputs under
// unit ref at configuration cfg ("" for --banks 32 instead).
func conflictsUnder(t *testing.T, ref, cfg string, inputs ...string) int64 {
	t.Helper()
	args := []string{"conflicts", "--json", "--banks", "32"}
	if cfg != "" {
		args = []string{"conflicts", "--json", "--hash", ref, "--hash-config", cfg}
	}
	code, stdout, stderr := lsugen(t, append(args, inputs...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var doc struct {
		Total struct {
			BankConflicts int64 `json:"bank_conflicts"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Total.BankConflicts
}

// TestSearchFor_ConfigFeedsBackThroughHashConfig: search --for on each
// configurable example unit over two inputs (two kernels) writes
// register values that, given back to conflicts --hash-config, count the
// conflicts search reported, for all the inputs and for each kernel on its
// own; the conflicts before are those of --banks 32.
func TestSearchFor_ConfigFeedsBackThroughHashConfig(t *testing.T) {
	inputs := []string{"../../specs/traces/transpose.trace", "../../specs/patterns_000.hcl"}
	for _, c := range []struct{ unit, method string }{
		{"cfg_bitvector_perm", ""},
		{"cfg_bitvector_xor", ""},
		{"cfg_bitvector_xor_reg", ""},
		{"cfg_bitwise_perm", ""},
		{"cfg_bitwise_xor", "mih"},
		{"cfg_bitwise_xor", "givargis"},
		{"cfg_rap_w32", "row_descent"},
	} {
		name := c.method
		if name == "" {
			name = "exhaustive"
		}
		t.Run(c.unit+"/"+name, func(t *testing.T) {
			ref := cfgHashSpec + ":" + c.unit
			out := filepath.Join(t.TempDir(), "cfg.json")
			args := []string{"search", "--for", ref, "-o", out}
			if c.method != "" {
				args = append(args, "--method", c.method)
			}
			code, stdout, stderr := lsugen(t, append(args, inputs...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc searchForFile
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Unit != c.unit || len(doc.Kernels) != len(inputs) || len(doc.Registers) == 0 {
				t.Fatalf("document: unit %q, %d kernels, %d registers", doc.Unit, len(doc.Kernels), len(doc.Registers))
			}
			if !strings.Contains(stdout, "config      "+doc.All.HashConfig+"\n") {
				t.Errorf("the report does not print the configuration written, %s:\n%s", doc.All.HashConfig, stdout)
			}
			check := func(e searchForEntry, ins ...string) {
				for _, r := range doc.Registers {
					if e.Registers[r.Key] == nil || !strings.Contains(e.Ports[r.Port], "'h") {
						t.Errorf("%s: register %s = %v, port %s = %q", e.Kernel, r.Key, e.Registers[r.Key], r.Port, e.Ports[r.Port])
					}
				}
				if got := conflictsUnder(t, ref, e.HashConfig, ins...); got != e.ConflictsAfter {
					t.Errorf("%v at %s: conflicts counts %d, search reported %d", ins, e.HashConfig, got, e.ConflictsAfter)
				}
				if got := conflictsUnder(t, ref, "", ins...); got != e.ConflictsBefore {
					t.Errorf("%v under mod 32: conflicts counts %d, search reported %d before", ins, got, e.ConflictsBefore)
				}
			}
			check(doc.All, inputs...)
			for i, k := range doc.Kernels {
				if k.Kernel != inputs[i] {
					t.Errorf("kernel %d is %q, want %q", i, k.Kernel, inputs[i])
				}
				check(k, inputs[i])
			}
		})
	}
}

// TestSearchFor_AtomicsCountedAsConflicts: over Accel-Sim traces with
// atomics whose lanes share an address, the conflicts search --for
// reports are still those conflicts --hash-config counts (an atomic's
// lanes on one word serialise), per kernel and in total.
func TestSearchFor_AtomicsCountedAsConflicts(t *testing.T) {
	ref := cfgHashSpec + ":cfg_bitvector_xor"
	in := "../../specs/traces/accelsim/kernelslist.g"
	out := filepath.Join(t.TempDir(), "cfg.json")
	if code, _, stderr := lsugen(t, "search", "--for", ref, "-o", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc searchForFile
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got := conflictsUnder(t, ref, doc.All.HashConfig, in); got != doc.All.ConflictsAfter {
		t.Errorf("at %s: conflicts counts %d, search reported %d", doc.All.HashConfig, got, doc.All.ConflictsAfter)
	}
	var sum int64
	for _, k := range doc.Kernels {
		sum += k.ConflictsBefore
	}
	if got := conflictsUnder(t, ref, "", in); got != doc.All.ConflictsBefore || sum != got {
		t.Errorf("under mod 32: conflicts counts %d, search reported %d in all, %d over its kernels", got, doc.All.ConflictsBefore, sum)
	}
}

// TestSearchFor_Refusals: search --for refuses what the unit decides or
// the unit it cannot configure, exit 2, naming the flag.
func TestSearchFor_Refusals(t *testing.T) {
	trace := "../../specs/traces/transpose.trace"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--for", cfgHashSpec + ":cfg_rap_w32", "--method", "mih"}, "rap's row shifts are searched by row_descent only"},
		{[]string{"--for", cfgHashSpec + ":cfg_bitvector_xor", "--method", "row_descent"}, `--method "row_descent": want exhaustive, givargis or mih`},
		{[]string{"--for", cfgHashSpec + ":cfg_bitvector_xor", "--function", "bitvector_xor"}, "--for takes the function"},
		{[]string{"--for", cfgHashSpec + ":cfg_bitvector_perm", "--full"}, "--full applies to exhaustive bitvector_xor"},
		{[]string{"--for", "../../specs/rap.hcl:rap_w32"}, "is constant: --for configures a configurable unit"},
		{[]string{"--for", cfgHashSpec + ":cfg_bitvector_xr"}, `Did you mean "cfg_bitvector_xor"?`},
		{[]string{"--c-header", "x.h", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5"}, "--c-header writes the C function of the configurable unit of --for"},
	} {
		code, _, stderr := lsugen(t, append(append([]string{"search"}, c.args...), trace)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestHashConfig_Refusals: --hash-config is refused, exit 2, with a message
// that names the key and its range, when it is wrong for the unit.
func TestHashConfig_Refusals(t *testing.T) {
	trace := "../../specs/traces/transpose.trace"
	bvx := cfgHashSpec + ":cfg_bitvector_xor"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=5"}, "missing mask (0..31)"},
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=16,mask=31"}, "k2=16: want 0..15"},
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=5,mask=32"}, "mask=32: want 0..31"},
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=5,mask=3,k1=1"}, "key k1 given twice"},
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=5,msk=3"}, `unknown key "msk"`},
		{[]string{"--hash", bvx, "--hash-config", "k1=0,k2=5,msk=3"}, `Did you mean "mask"?`},
		{[]string{"--hash", bvx, "--hash-config", "k1=x,k2=5,mask=3"}, "k1=x: want 0..15"},
		{[]string{"--hash", bvx}, "is configurable: give its configuration with --hash-config k1=0..15,k2=0..15,mask=0..31"},
		{[]string{"--hash", cfgHashSpec + ":cfg_bitwise_perm", "--hash-config", "sel=3"}, "sel has 5 fields: write them as a list"},
		{[]string{"--hash", cfgHashSpec + ":cfg_bitwise_perm", "--hash-config", "sel=[1,2,3]"}, "sel: 3 values, want 5"},
		{[]string{"--hash", cfgHashSpec + ":cfg_rap_w32", "--hash-config", "perm=[" + strings.Repeat("0,", 31) + "32]"}, "perm=32: want 0..31"},
		{[]string{"--hash-config", "k=1"}, "--hash-config configures the unit of --hash"},
		{[]string{"--hash", "../../specs/rap.hcl:rap_w4_fig6", "--hash-config", "k=1"}, "is constant, with no configuration registers"},
		{[]string{"--lock-hash", bvx}, "is configurable: give its configuration with --lock-hash-config k1=0..15,k2=0..15,mask=0..31"},
		{[]string{"--diff", bvx}, "is configurable: give its configuration with --diff-config k1=0..15,k2=0..15,mask=0..31"},
		{[]string{"--diff", bvx, "--diff-config", "k1=0,k2=16,mask=31"}, "--diff-config k1=0,k2=16,mask=31: k2=16: want 0..15"},
		{[]string{"--diff-config", "k=1"}, "--diff-config configures the unit of --diff"},
		{[]string{"--lock-hash-config", "k=1"}, "--lock-hash-config configures the unit of --lock-hash"},
		{[]string{"--lock-hash", "../../specs/rap.hcl:rap_w4_fig6", "--lock-hash-config", "k=1"}, "--lock-hash-config: hash \"rap_w4_fig6\" of --lock-hash ../../specs/rap.hcl:rap_w4_fig6 is constant"},
	} {
		code, _, stderr := lsugen(t, append(append([]string{"conflicts"}, c.args...), trace)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestHashConfig_MatchesConstantTwin: a rap and a bitwise_xor unit configured
// by hand count what their constant twins count: the rap of Figure 6
// (r = 2, 0, 3, 1) and a bitwise_xor whose selections equal its bits.
func TestHashConfig_MatchesConstantTwin(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "twins.hcl", `
hash "rap_cfg" {
  function     = "rap"
  w            = 4
  configurable = true
}
hash "rap_const" {
  function    = "rap"
  w           = 4
  permutation = [2, 0, 3, 1]
}
hash "bx_cfg" {
  function     = "bitwise_xor"
  addr_bits    = 10
  bank_bits    = 3
  configurable = true
}
hash "bx_const" {
  function  = "bitwise_xor"
  addr_bits = 10
  bank_bits = 3
  bits      = [[0, 5], [1, 1], [2, 9]]
}
`)
	trace := writeSpec(t, dir, "t.trace", "0 4 8 12 16 20 24 28\n0 1 2 3\n0 32 64 96 512 544\n")
	total := func(args ...string) string {
		code, stdout, stderr := lsugen(t, append(append([]string{"conflicts"}, args...), trace)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout[strings.Index(stdout, "\ntotal:"):]
	}
	for _, c := range [][2]string{
		{"rap_cfg", "perm=[2,0,3,1]"},
		{"bx_cfg", "sel_a=[0,1,2],sel_b=[5,1,9]"},
	} {
		twin := strings.Replace(c[0], "_cfg", "_const", 1)
		got, want := total("--hash", spec+":"+c[0], "--hash-config", c[1]), total("--hash", spec+":"+twin)
		if got != want {
			t.Errorf("%s at %s:%s\nwant (%s):%s", c[0], c[1], got, twin, want)
		}
		// The same configuration as --diff's unit B and as --lock-hash's.
		got, want = total("--banks", "4", "--diff", spec+":"+c[0], "--diff-config", c[1]), total("--banks", "4", "--diff", spec+":"+twin)
		if got != want {
			t.Errorf("--diff %s at %s:%s\nwant (%s):%s", c[0], c[1], got, twin, want)
		}
		got, want = total("--lock-hash", spec+":"+c[0], "--lock-hash-config", c[1]), total("--lock-hash", spec+":"+twin)
		if got != want || !strings.Contains(want, "lock conflicts") {
			t.Errorf("--lock-hash %s at %s:%s\nwant (%s):%s", c[0], c[1], got, twin, want)
		}
	}
}
