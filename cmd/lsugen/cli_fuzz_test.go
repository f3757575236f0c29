package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// The fuzz target of the command line: FuzzCLI runs lsugen in-process on
// an argument list decoded from the fuzz input (a command chosen by a
// byte, then arguments separated by NUL bytes or tokens of a vocabulary of
// flags and values) and checks what every command promises: no panic, an exit
// status of 0, 1 or 2, a message on stderr with every non-zero status,
// and nothing written outside the run's directory.
//
// Each run works in a fresh temporary directory (t.Chdir) holding a
// small copy of the inputs below, with TMPDIR and HOME pointing inside
// it. Arguments that could name a file elsewhere (an absolute path, any
// '/' or '..') are dropped. Runs are kept small: crosscheck-timing is not
// run (it starts Yosys and OpenSTA); verify always gets --sim=netlist and
// small --cycles, --vectors, --max-vectors and --configs first, and an
// input whose flags still select a simulator, --formal or --rtl is
// skipped; profile runs only with --coalescers (its built-in 32-lane
// coalescers take seconds); and flags that size the work (cliFuzzCaps)
// are bounded. A run longer than 10 s fails.
//
//	go test -run '^$' -fuzz '^FuzzCLI$' -fuzztime 10m -parallel 1 ./cmd/lsugen

// cliFuzzFiles are the inputs in the run's directory: name, source file
// (relative to this package) or, for "", the content below.
var cliFuzzFiles = []struct{ name, src, content string }{
	{"a.hcl", "", goodSpec},
	{"p.hcl", "../../specs/pipeline_figure4.hcl", ""},
	{"t.trace", "../../specs/traces/transpose.trace", ""},
	{"f.ptrace", "../../specs/traces/figure4.ptrace", ""},
	{"k.traceg", "../../specs/traces/accelsim/kernel-1.traceg", ""},
	{"tiny.lib", "../../timing/liberty/testdata/tiny.lib", ""},
	{"in.yml", "", "gapi: '1.0'\nfiles_root: .\nvlnv: v:l:n:1\nparameters:\n  spec: a.hcl\n  unit: h\n"},
}

// cliFuzzCaps bound, per command, the flags that size a run: an input
// whose effective value (given or default) of such a flag is past its
// bound, or does not parse, is skipped (each element of a comma list for
// rapsim --w). A flag value that does not parse as a flag is left to
// lsugen, which refuses it.
var cliFuzzCaps = map[string]map[string]int64{
	"verify":  {"vectors": 4096, "configs": 4, "cycles": 4096, "max-vectors": 4096, "jobs": 2},
	"search":  {"addr-bits": 20, "bank-bits": 10, "lanes": 1024},
	"rapsim":  {"trials": 20, "w": 1024},
	"pipesim": {"instructions": 2000, "static": 1000, "warps": 64},
}

// cliFuzzVerifyPrefix is put after `verify` when it is the first
// argument; later flags of the input override it.
var cliFuzzVerifyPrefix = []string{"--sim=netlist", "--cycles=1000", "--vectors=1024", "--max-vectors=1024", "--configs=4"}

// cliFuzzSeeds are real invocations of every command, with good and bad
// flags and values.
var cliFuzzSeeds = [][]string{
	{"gen", "a.hcl"},
	{"gen", "-o", "out", "--tb", "--fusesoc", "--c", "a.hcl"},
	{"gen", "--json", "-o", "o2", "a.hcl", "p.hcl"},
	{"gen", "--liberty", "tiny.lib", "--fusesoc", "a.hcl"},
	{"gen", "-o", "", "a.hcl"},
	{"gen", "-o", "a.hcl", "a.hcl"},
	{"gen", "--", "-odd.hcl"},
	{"gen", "-tb=false", "a.hcl"},
	{"gen", "--tb", "--tb", "a.hcl"},
	{"gen"},
	{"timing", "a.hcl"},
	{"timing", "--json", "--paths", "--mode", "sized", "a.hcl", "p.hcl"},
	{"timing", "--clock", "NaN", "a.hcl"},
	{"timing", "--clock", "1e-19", "a.hcl"},
	{"timing", "--clock", "1e300,-1,0", "a.hcl"},
	{"timing", "--clock", "", "a.hcl"},
	{"timing", "--driver-size", "-1", "--load", "Inf", "a.hcl"},
	{"timing", "--driver", "NaN", "a.hcl"},
	{"timing", "--svg", "t.svg", "--svg-unit", "h", "a.hcl"},
	{"timing", "--svg", "t.svg", "--svg-unit", "nope", "a.hcl"},
	{"timing", "--liberty", "tiny.lib", "a.hcl"},
	{"timing", "--mode", "huge", "a.hcl"},
	{"verify", "--sim", "netlist", "a.hcl"},
	{"verify", "--sim", "netlist", "--json", "--junit", "j.xml", "a.hcl", "p.hcl"},
	{"verify", "--sim", "netlist", "--unit", "h*", "--unit", "nope", "a.hcl"},
	{"verify", "--sim", "netlist", "--vectors", "-1", "a.hcl"},
	{"verify", "--sim", "netlist", "--vectors", "1000000000000", "a.hcl"},
	{"verify", "--sim", "netlist", "--vectors", "99999999999999999999999", "a.hcl"},
	{"verify", "--sim", "netlist", "--configs", "0", "--seed", "18446744073709551615", "a.hcl"},
	{"verify", "--sim", "netlist", "--jobs", "0", "a.hcl"},
	{"verify", "--sim", "netlist", "--sim-timeout", "-1s", "a.hcl"},
	{"verify", "--sim", "netlist", "--max-vectors", "NaN", "a.hcl"},
	{"verify", "--sim", "netlist", "--cycles", "10", "--work", "w", "p.hcl"},
	{"verify", "--sim", "", "a.hcl"},
	{"verify", "--sim", "netlist", "--top", "x", "-D", "A=1", "-I", "inc", "a.hcl"},
	{"verify", "--sim", "netlist", "--vcd-from", "-5", "a.hcl"},
	{"verify", "--sim", "netlist", "--", "--unit"},
	{"conflicts", "t.trace"},
	{"conflicts", "--json", "--accesses", "--banks", "16", "t.trace"},
	{"conflicts", "--hash", "a.hcl:h", "t.trace"},
	{"conflicts", "--hash", "a.hcl:nope", "t.trace"},
	{"conflicts", "--lock-bits", "64", "t.trace"},
	{"conflicts", "--lock-bits", "10", "--lock-hash", "a.hcl:h", "t.trace"},
	{"conflicts", "--banks", "0", "t.trace"},
	{"conflicts", "--banks", "-1", "t.trace"},
	{"conflicts", "--bank-bytes", "8", "k.traceg"},
	{"conflicts", "a.hcl"},
	{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", "--name", "s", "-o", "s.hcl", "--svg", "s.svg", "t.trace"},
	{"search", "--function", "bitwise_xor", "--method", "givargis", "--addr-bits", "12", "--bank-bits", "5", "t.trace"},
	{"search", "--function", "bitvector_xor", "--full", "--addr-bits", "10", "--bank-bits", "5", "--stride", "3", "--stride", "1,2", "t.trace"},
	{"search", "--compare", "--addr-bits", "12", "--bank-bits", "5", "k.traceg"},
	{"search", "--count", "--addr-bits", "64", "--bank-bits", "16"},
	{"search", "--count", "--addr-bits", "9223372036854775807", "--bank-bits", "1"},
	{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", "--name", "module", "-o", "m.hcl", "t.trace"},
	{"search", "--function", "nope", "--addr-bits", "10", "--bank-bits", "5", "t.trace"},
	{"search", "--addr-bits", "10", "t.trace"},
	{"search", "--function", "bitvector_xor", "--addr-bits", "5", "--bank-bits", "10", "t.trace"},
	{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", "--lanes", "-1", "--stride", "0", "t.trace"},
	{"profile", "--coalescers", "a.hcl", "k.traceg"},
	{"profile", "--coalescers", "a.hcl", "--block-bytes", "3", "--clock", "NaN", "k.traceg"},
	{"profile", "--spec-timing", "nope", "--coalescers", "p.hcl", "k.traceg"},
	{"profile", "--help"},
	{"pipesim", "p.hcl", "--trace", "f.ptrace"},
	{"pipesim", "p.hcl", "--synthetic", "--instructions", "100", "--json"},
	{"pipesim", "p.hcl", "--synthetic", "--degrees", "1:NaN,2:-1", "--mem", "1e300"},
	{"pipesim", "p.hcl", "--synthetic", "--warps", "0", "--static", "-1"},
	{"pipesim", "p.hcl", "--synthetic", "--instructions", "100", "--write-trace", "w.ptrace", "-o", "r.txt"},
	{"pipesim", "p.hcl", "--accelsim", "k.traceg", "--hash", "a.hcl:h"},
	{"pipesim", "p.hcl", "--accelsim", "k.traceg", "--banks", "16777217"},
	{"pipesim", "p.hcl", "--preset", "reduction", "--max-cycles", "10"},
	{"pipesim", "p.hcl", "--preset", "nope"},
	{"pipesim", "p.hcl", "--trace", "f.ptrace", "--synthetic"},
	{"pipesim", "a.hcl", "--trace", "f.ptrace"},
	{"rapsim", "--trials", "10", "--w", "16,32"},
	{"rapsim", "--trials", "5", "--w", "2", "--table", "IV", "--json"},
	{"rapsim", "--trials", "0"},
	{"rapsim", "--trials", "-1", "--w", "3"},
	{"rapsim", "--trials", "10", "--w", "", "--table", "V"},
	{"rapsim", "--trials", "10", "--w", "16,,32", "--seed", "-1"},
	{"characterize", "tiny.lib"},
	{"characterize", "--json", "--dont-use", "", "--inverter", "nope", "tiny.lib"},
	{"characterize", "a.hcl"},
	{"characterize"},
	{"fusesoc-gen", "in.yml"},
	{"fusesoc-gen", "-o", "fs", "--json", "in.yml"},
	{"fusesoc-gen", "a.hcl"},
	{"fusesoc-gen", "in.yml", "in.yml"},
	{"help"},
	{"help", "verify"},
	{"help", "nope"},
	{"version"},
	{"version", "--json"},
	{"version", "extra"},
	{"--version"},
	{"completion", "bash"},
	{"completion", "nope"},
	{"verfy", "a.hcl"},
	{"gen", "--adr-bits", "1"},
	{"--"},
	{},
	{""},
}

// cliFuzzAdmit returns the argument list to run and whether to run it
// (see the comment at the top of this file).
func cliFuzzAdmit(args []string) ([]string, bool) {
	kept := args[:0:0]
	for _, a := range args {
		if !strings.Contains(a, "/") && !strings.Contains(a, "..") {
			kept = append(kept, a)
		}
	}
	args = kept
	if len(args) > 0 && args[0] == "verify" {
		args = append(append(append([]string{}, args[0]), cliFuzzVerifyPrefix...), args[1:]...)
	}
	root := newRootCmd(&app{stdout: io.Discard, stderr: io.Discard, ctx: context.Background()})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		return args, true // a usage error, the root's own flags or help
	}
	name := cmd.Name()
	switch name {
	case "crosscheck-timing":
		return nil, false
	case "help", "completion", "version":
		return args, true
	}
	if err := cmd.ParseFlags(singleDashLongFlags(cmd, rest)); err != nil {
		return args, true // refused before any work
	}
	fs := cmd.Flags()
	if h, _ := fs.GetBool("help"); h {
		return args, true
	}
	value := func(f string) string {
		if fl := fs.Lookup(f); fl != nil {
			return fl.Value.String()
		}
		return ""
	}
	switch name {
	case "verify":
		if value("sim") != "netlist" || value("formal") != "false" || flagChanged(fs, "rtl") {
			return nil, false
		}
	case "profile":
		if !flagChanged(fs, "coalescers") {
			return nil, false
		}
	}
	if name == "search" {
		if c, _ := fs.GetBool("count"); c {
			return args, true // counting only: no search, no cap
		}
	}
	for f, limit := range cliFuzzCaps[name] {
		for _, v := range strings.Split(value(f), ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
			if v == "" && name == "rapsim" {
				continue // an empty element, refused by rapsim
			}
			if err != nil || n > limit {
				return nil, false
			}
		}
	}
	return args, true
}

// cliFuzzCommands are the commands a fuzz input's first value selects
// (modulo 16); 13 to 15 select none, the arguments then start with the
// command name or whatever else the input holds.
var cliFuzzCommands = []string{"gen", "timing", "verify", "conflicts", "search", "rapsim", "pipesim",
	"profile", "fusesoc-gen", "characterize", "help", "version", "completion"}

// cliFuzzValues are the values of the token vocabulary (see
// cliFuzzDecode); the flags of every command follow them.
var cliFuzzValues = []string{
	"", "--", "-", "0", "1", "2", "3", "4", "5", "8", "10", "12", "16", "32", "64", "1024", "65536",
	"-1", "-0", "NaN", "Inf", "-Inf", "1e300", "-1e300", "1e-19", "0.5", "0x10", "1_000",
	"9223372036854775807", "18446744073709551616", "a.hcl", "p.hcl", "t.trace", "f.ptrace", "k.traceg",
	"tiny.lib", "in.yml", "a.hcl:h", "a.hcl:nope", "p.hcl:h", "h", "h*", "nope", "out", "x.hcl", "x.svg",
	"netlist", "icarus", "unsized", "sized", "bitvector_xor", "bitwise_xor", "bitvector_perm",
	"bitwise_perm", "exhaustive", "givargis", "mih", "aes_encrypt", "reduction", "II", "IV", "both",
	"16,32", "1,2,3", "1:0.5,2:0.5", "40,48", "combined", "separate", "bash", "module", "x=1", "1s",
}

// cliFuzzVocab is the token vocabulary: cliFuzzValues, then every flag of
// every command, --name and -n, sorted.
var cliFuzzVocab = func() []string {
	seen := map[string]bool{}
	var flags []string
	root := newRootCmd(&app{stdout: io.Discard, stderr: io.Discard, ctx: context.Background()})
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			for _, n := range []string{"--" + f.Name, "-" + f.Shorthand} {
				if n != "-" && !seen[n] {
					seen[n] = true
					flags = append(flags, n)
				}
			}
		})
	}
	sort.Strings(flags)
	return append(append([]string{}, cliFuzzValues...), flags...)
}()

// cliFuzzDecode is the argument list of a fuzz input: the command that
// cmd selects, then data split into arguments at NUL bytes, at most 40;
// or, when data starts with 0xFF, one token of cliFuzzVocab per byte
// after it (modulo its length), so that mutations stay within real flags
// and values.
func cliFuzzDecode(cmd byte, data []byte) []string {
	var args []string
	if int(cmd%16) < len(cliFuzzCommands) {
		args = append(args, cliFuzzCommands[cmd%16])
	}
	if len(data) == 0 {
		return args
	}
	if data[0] == 0xFF {
		for _, b := range data[1:min(len(data), 41)] {
			args = append(args, cliFuzzVocab[int(b)%len(cliFuzzVocab)])
		}
		return args
	}
	parts := bytes.Split(data, []byte{0})
	if len(parts) > 40 {
		parts = parts[:40]
	}
	for _, p := range parts {
		args = append(args, string(p))
	}
	return args
}

// cliFuzzEncode is the fuzz input of an argument list, in tokens when
// tokens is set and every argument is one.
func cliFuzzEncode(args []string, tokens bool) (byte, []byte, bool) {
	cmd, rest := byte(15), args
	if len(args) > 0 {
		for i, c := range cliFuzzCommands {
			if args[0] == c {
				cmd, rest = byte(i), args[1:]
			}
		}
	}
	if !tokens {
		return cmd, []byte(strings.Join(rest, "\x00")), true
	}
	data := []byte{0xFF}
	for _, a := range rest {
		i := slices.Index(cliFuzzVocab, a)
		if i < 0 || i > 255 {
			return 0, nil, false
		}
		data = append(data, byte(i))
	}
	return cmd, data, true
}

// fileState is what a path holds, to tell whether a run changed it.
type fileState struct {
	exists  bool
	size    int64
	modTime time.Time
}

func statOf(p string) fileState {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileState{}
	}
	return fileState{true, fi.Size(), fi.ModTime()}
}

func FuzzCLI(f *testing.F) {
	for _, s := range cliFuzzSeeds {
		for _, tokens := range []bool{false, true} {
			if cmd, data, ok := cliFuzzEncode(s, tokens); ok {
				f.Add(cmd, data)
			}
		}
	}
	inputs := map[string][]byte{}
	for _, in := range cliFuzzFiles {
		b := []byte(in.content)
		if in.src != "" {
			var err error
			if b, err = os.ReadFile(in.src); err != nil {
				f.Fatal(err)
			}
		}
		inputs[in.name] = b
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	sysTmp := os.TempDir()
	f.Fuzz(func(t *testing.T, cmd byte, data []byte) {
		args, ok := cliFuzzAdmit(cliFuzzDecode(cmd, data))
		if !ok {
			t.Skip("outside the fuzzed set (an external tool or a large run)")
		}
		dir := t.TempDir()
		for name, b := range inputs {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []string{"tmp", "home"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
		t.Setenv("HOME", filepath.Join(dir, "home"))
		t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "home"))
		t.Chdir(dir)
		// Every name the arguments could make a file of, outside the
		// run's directory: as given and as a flag's value.
		var watch []string
		for _, a := range args {
			for _, n := range []string{a, a[strings.IndexByte(a, '=')+1:], strings.TrimLeft(a, "-oID")} {
				if n != "" && n != "." {
					watch = append(watch, filepath.Join(pkgDir, n), filepath.Join(sysTmp, n))
				}
			}
		}
		before := make([]fileState, len(watch))
		for i, p := range watch {
			before[i] = statOf(p)
		}
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != 0 && code != 1 && code != 2 {
			t.Errorf("lsugen %q: exit status %d, want 0, 1 or 2; stderr:\n%s", args, code, stderr.Bytes())
		}
		if code != 0 && strings.TrimSpace(stderr.String()) == "" {
			t.Errorf("lsugen %q: exit status %d with nothing on stderr", args, code)
		}
		for i, p := range watch {
			if after := statOf(p); after != before[i] {
				t.Errorf("lsugen %q wrote %s, outside its directory", args, p)
			}
		}
	})
}
