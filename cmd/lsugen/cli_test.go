package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
)

// commandNames are lsugen's commands, as the root lists them.
func commandNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, c := range newRootCmd(&app{stdout: io.Discard, stderr: io.Discard}).Commands() {
		names = append(names, c.Name())
	}
	if len(names) < 11 {
		t.Fatalf("commands %v", names)
	}
	return names
}

// TestCLI_HelpOnStdout: CMD -h, CMD --help and help CMD print the
// command's help on stdout and exit 0; lsugen alone prints the usage on
// stderr and exits 2.
func TestCLI_HelpOnStdout(t *testing.T) {
	for _, name := range append(commandNames(t), "completion") {
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
			code, stdout, stderr := lsugen(t, args...)
			if code != 0 || stderr != "" || !strings.Contains(stdout, "Usage:\n  lsugen "+name) {
				t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
			}
		}
	}
	// The help names the flags.
	if _, stdout, _ := lsugen(t, "verify", "--help"); !strings.Contains(stdout, "--unit PATTERN") || !strings.Contains(stdout, "--junit FILE") {
		t.Errorf("verify --help:\n%s", stdout)
	}
	code, stdout, stderr := lsugen(t)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "Available Commands:") || !strings.Contains(stderr, "  verify ") {
		t.Errorf("no arguments: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if code, stdout, _ := lsugen(t, args...); code != 0 || !strings.Contains(stdout, "Available Commands:") {
			t.Errorf("%v: exit %d:\n%s", args, code, stdout)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		// a test binary carries no commit: "unknown" (gen.BuildOf)
		if code, stdout, _ := lsugen(t, args...); code != 0 || stdout != "lsugen "+gen.Version+" (commit unknown)\n" {
			t.Errorf("%v: exit %d, %q", args, code, stdout)
		}
	}
}

// TestCLI_Suggestions: a misspelt command or flag is a usage error that
// suggests the nearest one.
func TestCLI_Suggestions(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verfy", spec}, "unknown command \"verfy\" for \"lsugen\"\n\nDid you mean this?\n\tverify\n"},
		{[]string{"timing", "--drivr-size", "2", spec}, "unknown flag: --drivr-size\n\nDid you mean this?\n\t--driver-size\n"},
		{[]string{"search", "--adr-bits", "10"}, "Did you mean this?\n\t--addr-bits\n"},
		{[]string{"verify", "--uint", "h", spec}, "Did you mean this?\n\t--unit\n"},
		{[]string{"verify", "--jo", "2", spec}, "Did you mean this?\n\t--jobs\n"}, // a prefix
		{[]string{"gen", "--zzzzzz", spec}, "unknown flag: --zzzzzz\nRun 'lsugen gen --help' for usage."},
	} {
		code, stdout, stderr := lsugen(t, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestCLI_Completion: cobra's completion scripts for bash, zsh and fish;
// the bash one parses.
func TestCLI_Completion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, stdout, stderr := lsugen(t, "completion", shell)
		if code != 0 || len(stdout) < 500 || !strings.Contains(stdout, "lsugen") {
			t.Fatalf("%s: exit %d, %d bytes, stderr %q", shell, code, len(stdout), stderr)
		}
		if shell != "bash" {
			continue
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Fatalf("no bash to check the script: %v", err)
		}
		script := filepath.Join(t.TempDir(), "lsugen.bash")
		if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, out)
		}
	}
	// The hidden command the scripts call lists the commands and flags.
	_, stdout, _ := lsugen(t, "__complete", "veri")
	if !strings.Contains(stdout, "verify") {
		t.Errorf("__complete veri:\n%s", stdout)
	}
	_, stdout, _ = lsugen(t, "__complete", "verify", "--ju")
	if !strings.Contains(stdout, "--junit") {
		t.Errorf("__complete verify --ju:\n%s", stdout)
	}
}

// TestFlags_OneMeaningPerName: across the command tree a flag name has one
// type and one help text, and a shorthand one long name, but for the
// listed exceptions (whose help may differ, and for some the type). The
// hidden deprecated spellings are left out: they are the old names of
// renamed flags.
func TestFlags_OneMeaningPerName(t *testing.T) {
	root := newRootCmd(&app{stdout: io.Discard, stderr: io.Discard})
	type use struct{ cmd, typ, usage string }
	uses := map[string][]use{}
	shorts := map[string]map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				if _, ok := f.Annotations[deprecatedFor]; !ok {
					t.Errorf("%s --%s: hidden but not a deprecated spelling", c.CommandPath(), f.Name)
				}
				return
			}
			if f.Name == "help" { // cobra's, "help for CMD"
				return
			}
			uses[f.Name] = append(uses[f.Name], use{c.CommandPath(), f.Value.Type(), f.Usage})
			if f.Shorthand != "" {
				if shorts[f.Shorthand] == nil {
					shorts[f.Shorthand] = map[string]bool{}
				}
				shorts[f.Shorthand][f.Name] = true
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	shared := 0
	for name, us := range uses {
		if len(us) < 2 {
			continue
		}
		shared++
		exc, excepted := flagNameExceptions[name]
		for _, u := range us[1:] {
			if u.typ != us[0].typ && !exc.types {
				t.Errorf("--%s is a %s in %s but a %s in %s", name, us[0].typ, us[0].cmd, u.typ, u.cmd)
			}
			if u.usage != us[0].usage && !excepted {
				t.Errorf("--%s has two meanings:\n  %s: %s\n  %s: %s", name, us[0].cmd, us[0].usage, u.cmd, u.usage)
			}
		}
	}
	for name := range flagNameExceptions {
		if len(uses[name]) < 2 {
			t.Errorf("exception --%s: the flag is not shared (any more)", name)
		}
	}
	for s, names := range shorts {
		if len(names) > 1 {
			t.Errorf("-%s stands for several flags: %v", s, names)
		}
	}
	if shared < 8 {
		t.Errorf("only %d shared flag names: the walk missed commands", shared)
	}
}

// TestCLI_DeprecatedSpellings: the old flag names still work, with a
// warning on stderr.
func TestCLI_DeprecatedSpellings(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	_, want, _ := lsugen(t, "timing", "--json", "--driver-size", "4", spec)
	code, got, stderr := lsugen(t, "timing", "--json", "--driver", "4", spec)
	if code != 0 || got != want || !strings.Contains(stderr, "lsugen timing: --driver is deprecated: use --driver-size") {
		t.Errorf("timing --driver: exit %d, stderr %q, same output %v", code, stderr, got == want)
	}
	_, def, _ := lsugen(t, "timing", "--json", spec)
	if def == want {
		t.Error("--driver-size 4 changed nothing")
	}
	code, _, stderr = lsugen(t, "crosscheck-timing", "--liberty", "x.lib", "--load", "0", spec)
	if code != 2 || !strings.Contains(stderr, "--load is deprecated: use --load-factor") || !strings.Contains(stderr, "--load-factor, --target") {
		t.Errorf("crosscheck-timing --load 0: exit %d, %q", code, stderr)
	}
}

// TestCLI_FlagSpellings: flags before or after the arguments, Go-style
// single-dash long flags (-json), -o and --o for --output, and -- ending
// the flags.
func TestCLI_FlagSpellings(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	for _, args := range [][]string{
		{"gen", "--json", "-o", filepath.Join(dir, "o1"), spec},
		{"gen", spec, "-json", "--o", filepath.Join(dir, "o2")},
		{"gen", "-json", "-o=" + filepath.Join(dir, "o3"), "-tb=false", spec},
		{"gen", "--output", filepath.Join(dir, "o4"), "--json", "--", spec},
	} {
		code, stdout, stderr := lsugen(t, args...)
		var rep genReport
		if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || len(rep.Files) != 2 {
			t.Errorf("%v: exit %d, %v, stderr %q", args, code, err, stderr)
		}
	}
	// After --, a name that starts with a dash is an argument.
	t.Chdir(dir)
	writeSpec(t, dir, "-b.hcl", goodSpec)
	if code, _, stderr := lsugen(t, "timing", "--", "-b.hcl"); code != 0 {
		t.Errorf("timing -- -b.hcl: exit %d, %s", code, stderr)
	}
	if code, _, stderr := lsugen(t, "timing", "-b.hcl"); code != 2 || !strings.Contains(stderr, "unknown shorthand flag: 'b'") {
		t.Errorf("timing -b.hcl: exit %d, %s", code, stderr)
	}
	// The value of a flag is never taken for a flag.
	if code, _, stderr := lsugen(t, "rapsim", "--table", "-json"); code != 2 || !strings.Contains(stderr, `--table "-json"`) {
		t.Errorf("rapsim --table -json: exit %d, %s", code, stderr)
	}
}

// TestCLI_ExitCodes: per command, exit 0 on success, 1 on a failure, 2 on
// bad flags, missing arguments, a missing file or an invalid spec; -h is
// 0.
func TestCLI_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	invalid := writeSpec(t, dir, "bad.hcl", strings.Replace(goodSpec, "bank_bits = 5", "bank_bits = 6", 1))
	trace := writeSpec(t, dir, "t.trace", "0 1 2 3 32 64\n")
	gapi := writeSpec(t, dir, "g.yml", "gapi: '1.0'\nfiles_root: "+dir+"\nparameters:\n  spec: "+filepath.Base(spec)+"\n")
	missing := filepath.Join(dir, "missing")
	out := filepath.Join(dir, "out")
	t.Setenv("LSUGEN_VERILATOR", "/nonexistent/verilator")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"gen", "-o", out, spec}, 0},
		{[]string{"gen", "-o", out, missing + ".hcl"}, 2},
		{[]string{"gen", "-o", out, invalid}, 2},
		{[]string{"gen"}, 2},
		{[]string{"gen", "--bogus", spec}, 2},
		{[]string{"timing", spec}, 0},
		{[]string{"timing", missing + ".hcl"}, 2},
		{[]string{"timing", "--liberty", missing + ".lib", spec}, 2},
		{[]string{"timing", "--mode", "fast", spec}, 2},
		{[]string{"verify", "--sim", "netlist", spec}, 0},
		{[]string{"verify", "--sim", "verilator", spec}, 1}, // the tool is missing
		{[]string{"verify", missing + ".hcl"}, 2},
		{[]string{"verify", "--unit", "nope", spec}, 2},
		{[]string{"verify", "--rtl", missing + ".v", spec}, 2},
		{[]string{"verify", "--sim", "spice", spec}, 2},
		{[]string{"verify"}, 2},
		{[]string{"conflicts", trace}, 0},
		{[]string{"conflicts", missing + ".trace"}, 2},
		{[]string{"conflicts", "--banks", "0", trace}, 2},
		{[]string{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", trace}, 0},
		{[]string{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", missing + ".trace"}, 2},
		{[]string{"search", trace}, 2},
		{[]string{"rapsim", "--w", "16", "--trials", "10", "--table", "II"}, 0},
		{[]string{"rapsim", "--w", "17"}, 2},
		{[]string{"study", "atomics-fig5", "--set", "strides=0"}, 0},
		{[]string{"study", "atomics-fig5", "--set", "strides=-1"}, 2},
		{[]string{"study", "no-such-study"}, 2},
		{[]string{"study", "atomics-trace", "no-such.trace"}, 1},
		{[]string{"pipesim", fig4Spec, "--trace", fig4Trace}, 0},
		{[]string{"pipesim", fig4Spec, "--trace", missing + ".ptrace"}, 2},
		{[]string{"pipesim", missing + ".hcl", "--synthetic"}, 2},
		{[]string{"pipesim", fig4Spec, "--trace", fig4Trace, "--max-cycles", "3"}, 1},
		{[]string{"profile", "../../specs/traces/accelsim/profile_copy.traceg"}, 0},
		{[]string{"profile", missing + ".traceg"}, 2},
		{[]string{"profile", "--block-bytes", "3", "../../specs/traces/accelsim/profile_copy.traceg"}, 2},
		{[]string{"fusesoc-gen", "-o", filepath.Join(dir, "core"), gapi}, 0},
		{[]string{"fusesoc-gen", missing + ".yml"}, 2},
		{[]string{"fusesoc-gen"}, 2},
		{[]string{"crosscheck-timing", "--liberty", missing + ".lib", spec}, 2},
		{[]string{"crosscheck-timing", spec}, 2},
		{[]string{"crosscheck-timing", "--liberty", missing + ".lib", invalid}, 2},
		{[]string{"characterize", missing + ".lib"}, 2},
		{[]string{"characterize"}, 2},
		{[]string{"version"}, 0},
		{[]string{"version", "extra"}, 2},
		{[]string{"completion", "bash"}, 0},
		{[]string{"completion", "tcsh"}, 2},
		{[]string{"replay", "../../specs/shared_memory.hcl:shmem_small", trace}, 0},
		{[]string{"replay", "../../specs/shared_memory.hcl:shmem_small", "../../specs/traces/accelsim/kernelslist.g"}, 2}, // 32-lane warps on an 8-lane unit
		{[]string{"replay", "../../specs/shared_memory.hcl:nope", trace}, 2},
		{[]string{"replay", "--sim", "icarus", "../../specs/shared_memory.hcl:shmem_small", trace}, 2},
		{[]string{"replay", "../../specs/shared_memory.hcl:shmem_small"}, 2},
		{[]string{"frobnicate"}, 2},
	}
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.args[0]] = true
		code, stdout, stderr := lsugen(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\nstdout: %.500s\nstderr: %.500s", c.args, code, c.code, stdout, stderr)
		}
		if c.code == 2 && stderr == "" {
			t.Errorf("%v: exit 2 without a message: %q", c.args, stderr)
		}
	}
	var untested []string
	for _, name := range commandNames(t) {
		if !tested[name] {
			untested = append(untested, name)
		}
		if code, _, _ := lsugen(t, name, "-h"); code != 0 {
			t.Errorf("%s -h: exit %d", name, code)
		}
		if code, _, _ := lsugen(t, name, "--no-such-flag"); code != 2 {
			t.Errorf("%s --no-such-flag: exit %d", name, code)
		}
	}
	sort.Strings(untested)
	if len(untested) > 0 {
		t.Errorf("commands without exit-status cases: %v", untested)
	}
}
