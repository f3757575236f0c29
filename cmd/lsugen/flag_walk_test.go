package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The inputs of the trace commands, one per kind they accept.
const (
	walkTrace       = "../../specs/traces/transpose.trace"                   // lsugen's own trace
	walkAccelSim    = "../../specs/traces/accelsim/kernelslist.g"            // Accel-Sim (NVBit) traces
	walkPatterns    = "../../specs/patterns_000.hcl"                         // a spec's pattern blocks
	walkHashSpec    = "../../specs/hash_atomics.hcl:atomic_xor"              // a constant hash unit
	walkCfgHashSpec = "../../specs/hash_configurable.hcl:cfg_bitvector_perm" // a configurable one
	walkShmem       = "../../specs/large/shared_memory_fermi.hcl"            // its lone shared_memory
	walkSpec        = "../../specs/hash_atomics.hcl"                         // small constant hashes
	walkStudy       = "testdata/flag_walk_pipeline.hcl"                      // two pipelines, two masks
	walkPipeline    = "../../specs/traces/accelsim/pipesim_example.traceg"
	walkPTrace      = "../../specs/traces/figure4.ptrace"
	// the optional cell library: a probe that names it is skipped without it
	walkLiberty = "../../../shared/liberty/sky130_fd_sc_hd__tt_025C_1v80.lib.gz"
)

// flagWalk is how TestFlags_EachAppliesOrIsRefused runs one command: its
// base arguments for each input kind it accepts, and per flag the
// arguments that set it to something other than its default ({OUT} is a
// directory for the files a flag writes). Every flag of the command is a
// probe or an exemption.
type flagWalk struct {
	inputs map[string][]string
	probes map[string][]string
	exempt map[string]string
	// normalize drops what differs between two runs of the same command
	// (a duration).
	normalize func(string) string
}

var elapsedRE = regexp.MustCompile(`[0-9.]+ s\)|"seconds": [0-9.e+-]+`)

var flagWalks = map[string]flagWalk{
	"conflicts": {
		inputs: map[string][]string{
			"trace": {walkTrace}, "accelsim": {walkAccelSim}, "patterns": {walkPatterns},
		},
		probes: map[string][]string{
			"json": {"--json"}, "accesses": {"--accesses"}, "banks": {"--banks", "7"},
			"hash": {"--hash", walkHashSpec}, "bank-bytes": {"--bank-bytes", "8"},
			"lock-bits": {"--lock-bits", "3"}, "lock-hash": {"--lock-hash", walkHashSpec},
			"csv": {"--csv"}, "diff": {"--diff", walkHashSpec}, "sort": {"--sort", "excess"}, "top": {"--top", "1"},
			"hash-config": {"--hash-config", "k=2"}, "diff-config": {"--diff-config", "k=2"}, "lock-hash-config": {"--lock-hash-config", "k=2"},
			// the combinations that give one thing twice
			"banks+hash": {"--banks", "7", "--hash", walkHashSpec},
			// a configurable unit at a configuration; the same keys on a constant one
			"hash+hash-config":           {"--hash", walkCfgHashSpec, "--hash-config", "k=2"},
			"hash+hash-config(constant)": {"--hash", walkHashSpec, "--hash-config", "k=2"},
			"diff+diff-config":           {"--diff", walkCfgHashSpec, "--diff-config", "k=2"},
			"lock-hash+lock-hash-config": {"--lock-hash", walkCfgHashSpec, "--lock-hash-config", "k=2"},
		},
	},
	"search": {
		inputs: map[string][]string{
			"trace":    {"--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3", walkTrace},
			"accelsim": {"--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3", walkAccelSim},
			"patterns": {"--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3", walkPatterns},
			"stride":   {"--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3", "--stride", "2"},
		},
		probes: map[string][]string{
			"json": {"--json"}, "function": {"--function", "bitvector_perm"}, "method": {"--method", "givargis"},
			"addr-bits": {"--addr-bits", "9"}, "bank-bits": {"--bank-bits", "2"},
			"output": {"-o", "{OUT}/h.hcl"}, "name": {"--name", "other"}, "full": {"--full"},
			"count": {"--count"}, "compare": {"--compare"}, "banks": {"--banks", "7"},
			"bank-bytes": {"--bank-bytes", "8"}, "svg": {"--svg", "{OUT}/h.svg"},
			"lanes": {"--lanes", "8"}, "stride": {"--stride", "3"},
			"count+full": {"--count", "--full"}, "compare+banks": {"--compare", "--banks", "7"},
			"output+name": {"-o", "{OUT}/h.hcl", "--name", "other"},
			"for":         {"--for", walkCfgHashSpec}, "c-header": {"--c-header", "{OUT}/h.h"},
		},
	},
	"profile": {
		inputs: map[string][]string{"accelsim": {"../../specs/traces/accelsim/profile_copy.traceg"}},
		probes: map[string][]string{
			"json": {"--json"}, "block-bytes": {"--block-bytes", "64"}, "clock": {"--clock", "30"},
			"timing-mode": {"--timing-mode", "unsized"}, "liberty": {"--liberty", "{LIBERTY}"},
			"spec-timing": {"--spec-timing", "separate"},
			"coalescers":  {"--coalescers", "../../specs/coalescer_masked.hcl"},
		},
	},
	"pipesim": {
		inputs: map[string][]string{
			"accelsim":  {walkStudy, "--accelsim", walkPipeline},
			"ptrace":    {"../../specs/pipeline_figure4.hcl", "--trace", walkPTrace},
			"synthetic": {walkStudy, "--synthetic"},
		},
		probes: map[string][]string{
			"json": {"--json"}, "output": {"-o", "{OUT}/r.json"}, "unit": {"--unit", "walk_split"},
			"mask": {"--mask", "walk_mask_small"}, "accelsim": {"--accelsim", walkPipeline},
			"trace": {"--trace", walkPTrace}, "synthetic": {"--synthetic"}, "preset": {"--preset", "irregular"},
			"banks": {"--banks", "7"}, "hash": {"--hash", walkHashSpec}, "bank-bytes": {"--bank-bytes", "8"},
			"degrees": {"--degrees", "1,2"}, "instructions": {"--instructions", "7"}, "irregular": {"--irregular"},
			"max-cycles": {"--max-cycles", "5"}, "mem": {"--mem", "0.5"}, "seed": {"--seed", "9"},
			"shmem": {"--shmem", "0.1"}, "static": {"--static", "40"}, "warps": {"--warps", "3"},
			"write-trace": {"--write-trace", "{OUT}/w.ptrace"}, "work-budget": {"--work-budget", "1"},
			"banks+hash":  {"--banks", "7", "--hash", walkHashSpec},
			"hash-config": {"--hash-config", "k=2"}, "hash+hash-config": {"--hash", walkCfgHashSpec, "--hash-config", "k=2"},
		},
		exempt: map[string]string{
			"quiet": "silences the progress line, which a run as short as these never prints",
		},
	},
	"replay": {
		inputs: map[string][]string{
			"trace": {walkShmem, walkTrace}, "accelsim": {walkShmem, walkAccelSim},
		},
		probes: map[string][]string{
			"json": {"--json"}, "work": {"--work", "{OUT}/w"},
		},
		exempt: map[string]string{
			"sim": "--sim verilator runs Verilator (TestReplay_Verilator), not an in-process check",
		},
		normalize: func(s string) string { return elapsedRE.ReplaceAllString(s, "(elapsed)") },
	},
	"timing": {
		inputs: map[string][]string{"spec": {walkSpec}},
		probes: map[string][]string{
			"json": {"--json"}, "paths": {"--paths"}, "driver-size": {"--driver-size", "4"}, "load": {"--load", "8"},
			"timing-mode": {"--timing-mode", "unsized"}, "no-wire": {"--no-wire"}, "liberty": {"--liberty", "{LIBERTY}"},
			"clock": {"--clock", "3"}, "svg": {"--svg", "{OUT}/t.svg"}, "svg-unit": {"--svg-unit", "atomic_xor"},
			"gate-budget": {"--gate-budget", "10"}, "clock-fo4": {"--clock-fo4", "20"}, "unit": {"--unit", "atomic_xor"},
			"sweep-clock": {"--sweep-clock", "20:40:20"}, "job-list": {"--job-list", "{OUT}/jobs"},
			"out-dir": {"--out-dir", "{OUT}/d"}, "job-command": {"--job-command", "lsugen"},
			"sweep-point": {"--sweep-point", "atomic_xor@20"}, "sweep-merge": {"--sweep-merge", "{OUT}"},
			"sta-liberty": {"--sta-liberty", "{LIBERTY}"}, "jobs": {"--jobs", "2"},
			"work-budget": {"--work-budget", "1s"}, "quiet": {"--quiet"},
			"svg+svg-unit":          {"--svg", "{OUT}/t.svg", "--svg-unit", "atomic_xor"},
			"clock-fo4+work-budget": {"--clock-fo4", "20", "--work-budget", "1ns"},
			"sweep-point+unit":      {"--sweep-point", "atomic_xor@20", "--out-dir", "{OUT}/d", "--unit", "atomic_xor"},
		},
	},
	"gen": {
		inputs: map[string][]string{"spec": {"-o", "{OUT}/g", walkSpec}},
		probes: map[string][]string{
			"json": {"--json"}, "c": {"--c"}, "fusesoc": {"--fusesoc"}, "tb": {"--tb"},
			"output": {"-o", "{OUT}/other"}, "output-budget": {"--output-budget", "100"}, "gate-budget": {"--gate-budget", "10"},
			"clock-fo4": {"--clock-fo4", "20"}, "clock": {"--clock", "5GHz"}, "timing-mode": {"--timing-mode", "unsized"},
			"unit":                  {"--unit", "atomic_xor"},
			"clock-fo4+timing-mode": {"--clock-fo4", "20", "--timing-mode", "unsized"},
			// refused on units that pipeline nothing; with a clock, a budget under the estimate refuses
			"work-budget": {"--work-budget", "1s"}, "quiet": {"--quiet"},
			"clock-fo4+work-budget": {"--clock-fo4", "20", "--work-budget", "1ns"},
		},
		exempt: map[string]string{
			"liberty": "checks that the library has every cell the units use (flow.missesInLibrary) and converts clocks: on units whose cells it has, without a clock, the check passes and nothing shows; with --fusesoc it is also the cores' library",
		},
	},
	"version": {
		inputs: map[string][]string{"none": nil},
		probes: map[string][]string{"json": {"--json"}},
	},
	"study": {
		inputs: map[string][]string{"fig5": {"atomics-fig5"}},
		probes: map[string][]string{
			"json": {"--json"}, "set": {"--set", "strides=32"}, "svg": {"--svg", "{OUT}/s.svg"},
			"params": {"--params"}, "list": {"--list"},
		},
		exempt: map[string]string{
			"quiet": "silences the progress line, which a run as short as these never prints",
		},
	},
	"rapsim": {
		inputs: map[string][]string{"none": {"--trials", "20", "--w", "2"}},
		probes: map[string][]string{
			"json": {"--json"}, "seed": {"--seed", "9"}, "table": {"--table", "II"}, "trials": {"--trials", "21"},
			"w": {"--w", "4"}, "work-budget": {"--work-budget", "1"},
		},
		exempt: map[string]string{
			"quiet": "silences the progress line, which a run as short as these never prints",
		},
	},
}

// walkExemptCommands take specs, libraries or GAPI files, not traces;
// their flags are checked against their modes by their own refusal tests.
var walkExemptCommands = map[string]string{
	"gen":                   "spec command: generates Verilog (TestGen_*)",
	"timing":                "spec command: its sweep steps refuse each other's flags (sweepFlags.check, TestSweep_*)",
	"timing sweep":          "spec command: as timing --sweep-clock",
	"timing sweep-point":    "spec command: as timing --sweep-point",
	"timing sweep-merge":    "reads a sweep's results: as timing --sweep-merge",
	"verify":                "spec command: checkVerifyFlags refuses the flags of other modes (TestVerify_*)",
	"verify sim":            "spec command: as verify",
	"verify rtl":            "spec command: as verify --rtl",
	"verify formal":         "spec command: as verify --formal",
	"fusesoc-gen":           "reads a FuseSoC GAPI file (TestFusesoc_*)",
	"crosscheck-timing":     "runs Yosys and OpenSTA (TestCrosscheck_*)",
	"characterize":          "reads a cell library",
	"version":               "no input: --json is its only flag (TestVersion_*)",
	"completion":            "cobra's shell completion",
	"completion bash":       "cobra's shell completion",
	"completion fish":       "cobra's shell completion",
	"completion powershell": "cobra's shell completion",
	"completion zsh":        "cobra's shell completion",
	"help":                  "cobra's help",
}

// TestFlags_EachAppliesOrIsRefused walks the command tree: every flag of a
// trace command, on each input kind the command accepts, either changes
// what the command prints or writes (or its exit status), or is refused
// with exit status 2 and a message that names it; none is silently
// ignored. Every command is walked or exempt with a reason.
func TestFlags_EachAppliesOrIsRefused(t *testing.T) {
	root := newRootCmd(&app{stdout: io.Discard, stderr: io.Discard})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			path := strings.TrimPrefix(sub.CommandPath(), "lsugen ")
			if w, ok := flagWalks[path]; ok {
				checkFlagWalk(t, path, sub, w)
			} else if walkExemptCommands[path] == "" {
				t.Errorf("%s: neither walked (flagWalks) nor exempt (walkExemptCommands)", path)
			}
			walk(sub)
		}
	}
	walk(root)
}

func checkFlagWalk(t *testing.T, path string, cmd *cobra.Command, w flagWalk) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Hidden {
			return // cobra's; a deprecated spelling shares its flag's value
		}
		if _, ok := w.probes[f.Name]; !ok && w.exempt[f.Name] == "" {
			t.Errorf("%s --%s: no probe and no exemption", path, f.Name)
		}
	})
	kinds := sortedKeys(w.inputs)
	probes := sortedKeys(w.probes)
	for _, kind := range kinds {
		base := w.inputs[kind]
		code0, out0, files0, errOut0 := walkRun(t, path, base, nil, w.normalize)
		if code0 != 0 {
			t.Errorf("%s on %s: base run %v: exit %d\n%s", path, kind, base, code0, errOut0)
			continue
		}
		for _, name := range probes {
			probe := w.probes[name]
			if containsRun(base, probe) {
				continue // the flag that makes this input kind
			}
			if slices.Contains(probe, "{LIBERTY}") {
				if _, err := os.Stat(walkLiberty); err != nil {
					t.Logf("%s %v: skipped, no cell library: %v", path, probe, err)
					continue
				}
			}
			code, out, files, errOut := walkRun(t, path, base, probe, w.normalize)
			if code == code0 && out == out0 && files == files0 && code == 0 && !slices.Contains(probe, "--json") {
				// what the text leaves out, the JSON report may show
				_, jout0, _, _ := walkRun(t, path, base, []string{"--json"}, w.normalize)
				_, jout, _, _ := walkRun(t, path, base, append([]string{"--json"}, probe...), w.normalize)
				if jout != jout0 {
					continue
				}
			}
			flags := flagNames(probe)
			switch {
			case code == 2:
				if !mentionsAny(errOut, flags) {
					t.Errorf("%s %v on %s: refused without naming %s: %s", path, probe, kind, strings.Join(flags, " or "), errOut)
				}
			case code == code0 && out == out0 && files == files0:
				t.Errorf("%s %v on %s: ignored (exit %d, the same output): refuse it or make it count", path, probe, kind, code)
			}
		}
	}
}

// walkRun runs lsugen PATH base probe in-process; {OUT} becomes a new
// directory whose files come back as a listing.
func walkRun(t *testing.T, path string, base, probe []string, normalize func(string) string) (int, string, string, string) {
	t.Helper()
	dir := t.TempDir()
	args := strings.Fields(path)
	for _, a := range append(append([]string(nil), base...), probe...) {
		a = strings.ReplaceAll(a, "{LIBERTY}", walkLiberty)
		args = append(args, strings.ReplaceAll(a, "{OUT}", dir))
	}
	var o, e bytes.Buffer
	code := run(args, &o, &e)
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			b, _ := os.ReadFile(p) // a directory reads as nothing
			files = append(files, fmt.Sprintf("%s %x", strings.TrimPrefix(p, dir), sha256.Sum256(bytes.ReplaceAll(b, []byte(dir), []byte("{OUT}")))))
		}
		return nil
	})
	out := strings.ReplaceAll(o.String(), dir, "{OUT}")
	if normalize != nil {
		out = normalize(out)
	}
	return code, out, strings.Join(files, "\n"), e.String()
}

// containsRun reports whether probe appears in args as a run.
func containsRun(args, probe []string) bool {
	for i := 0; i+len(probe) <= len(args); i++ {
		if slices.Equal(args[i:i+len(probe)], probe) {
			return true
		}
	}
	return false
}

// flagNames are the flags that args set, as --name.
func flagNames(args []string) []string {
	var out []string
	for _, a := range args {
		switch {
		case a == "-o":
			out = append(out, "--output", "-o")
		case strings.HasPrefix(a, "--"):
			out = append(out, a)
		}
	}
	return out
}

func mentionsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestFlags_Refusals: the combinations issue 30 found ignored, and their
// like, are refused with exit status 2 and the flag named.
func TestFlags_Refusals(t *testing.T) {
	search := []string{"search", "--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conflicts", "--bank-bytes", "8", walkTrace}, "--bank-bytes applies to Accel-Sim traces"},
		{[]string{"conflicts", "--bank-bytes", "8", walkPatterns}, "--bank-bytes applies to Accel-Sim traces"},
		{[]string{"conflicts", "--banks", "7", "--hash", walkHashSpec, walkTrace}, "--banks and --hash both give the bank mapping"},
		{[]string{"conflicts", "--banks", "7", "--hash", walkHashSpec, walkAccelSim}, "--banks and --hash both give the bank mapping"},
		{append(search, "--bank-bytes", "8", walkTrace), "--bank-bytes applies to Accel-Sim traces"},
		{append(search, "--bank-bytes", "8", "--stride", "2"), "--bank-bytes applies to Accel-Sim traces"},
		{append(search, "--banks", "7", walkTrace), "--banks applies to --compare only"},
		{append(search, "--lanes", "8", walkTrace), "--lanes applies to the reference accesses of --stride only"},
		{append(search, "--name", "h", walkTrace), "--name names the hash block that -o writes"},
		{append(search, "--count", "--full", walkTrace), "--full: --count counts"},
		{[]string{"search", "--function", "bitvector_perm", "--full", "--addr-bits", "8", "--bank-bits", "3", walkTrace}, "--full applies to bitvector_xor"},
		{[]string{"replay", "--work", t.TempDir(), walkShmem, walkTrace}, "--work keeps the Verilog and build of --sim verilator"},
		{[]string{"timing", "--sta-liberty", "x.lib", walkSpec}, "--sta-liberty: applies to a clock sweep"},
	} {
		code, _, errOut := lsugen(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// With an Accel-Sim trace among the inputs, --bank-bytes applies.
	if code, _, errOut := lsugen(t, "conflicts", "--bank-bytes", "8", walkTrace, walkAccelSim); code != 0 {
		t.Errorf("--bank-bytes with an Accel-Sim input: exit %d: %s", code, errOut)
	}
}

// TestReplay_PredictedFlagsRun: the conflicts flags that replay prints as
// its prediction are ones conflicts accepts for the same inputs (no
// --bank-bytes for word-addressed traces).
func TestReplay_PredictedFlagsRun(t *testing.T) {
	spec := "../../specs/large/shared_memory_fermi.hcl"
	for _, in := range []string{walkTrace, walkAccelSim} {
		code, out, errOut := lsugen(t, "replay", spec, in)
		i := strings.Index(out, "predicted: lsugen conflicts ")
		if code != 0 || i < 0 {
			t.Fatalf("replay %s: exit %d\n%s%s", in, code, out, errOut)
		}
		line := out[i+len("predicted: lsugen conflicts "):]
		line = line[:strings.Index(line, " (passes")]
		args := append(strings.Fields(strings.ReplaceAll(line, "SPEC:", spec+":")), in)
		if code, _, errOut := lsugen(t, append([]string{"conflicts"}, args...)...); code != 0 {
			t.Errorf("replay %s predicts with conflicts %v, which exits %d: %s", in, args, code, errOut)
		}
	}
}
