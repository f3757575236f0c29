// Package hdl runs lsugen's generated Verilog through external simulators
// (Icarus Verilog and Verilator) and finds the external tools lsugen uses.
//
// Find is the one place where external programs are located: every package
// that needs iverilog, vvp, verilator, yosys, make or g++ asks Find.
//
// A Bench is a cross-check: one generated testbench instantiates several
// modules with the same ports (say the readable RTL and the gate-level
// netlist of one unit), applies each input vector to all of them and writes
// every module's outputs, which Run parses and returns for comparison with
// the behavioural model. A clocked Bench drives the modules' clock, applies
// a reset cycle and then one vector per clock cycle.
package hdl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tool is an external program found on this machine.
type Tool struct {
	Name    string // the name Find was asked for, e.g. "verilator"
	Path    string // absolute path of the executable
	Version string // version number as the tool prints it, e.g. "5.006"
}

func (t *Tool) String() string { return t.Name + " " + t.Version + " (" + t.Path + ")" }

// toolSpec says how to find, probe and install one tool.
type toolSpec struct {
	versionArgs []string
	pkg         string // Debian package
	min         [2]int // minimum major.minor; zero: any
	why         string // reason for the minimum
}

var toolSpecs = map[string]toolSpec{
	"iverilog":  {[]string{"-V"}, "iverilog", [2]int{10, 0}, ""},
	"vvp":       {[]string{"-V"}, "iverilog", [2]int{10, 0}, ""},
	"verilator": {[]string{"--version"}, "verilator", [2]int{5, 0}, "the testbench needs --main and --timing"},
	"yosys":     {[]string{"-V"}, "yosys", [2]int{}, ""},
	"make":      {[]string{"--version"}, "make", [2]int{}, ""},
	"g++":       {[]string{"--version"}, "g++", [2]int{}, ""},
	"sta":       {[]string{"-version"}, "opensta", [2]int{}, ""}, // OpenSTA; prints e.g. "2.0.17"
}

// EnvVar is the environment variable that overrides the path of tool name:
// LSUGEN_ and the name in upper case, '+' written X and other characters
// that are not letters or digits written _ (LSUGEN_VERILATOR, LSUGEN_GXX).
func EnvVar(name string) string {
	var b strings.Builder
	b.WriteString("LSUGEN_")
	for _, r := range strings.ToUpper(name) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+':
			b.WriteByte('X')
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// InstallHint is the advice printed when tool name is missing.
func InstallHint(name string) string {
	pkg := name
	if s, ok := toolSpecs[name]; ok {
		pkg = s.pkg
	}
	return fmt.Sprintf("install it with `apt-get install %s` (or run `make deps`), or set %s to its path", pkg, EnvVar(name))
}

type findResult struct {
	tool *Tool
	err  error
}

var (
	findMu    sync.Mutex
	findCache = map[string]findResult{} // key: name + "\x00" + override
)

// Find locates the external tool name ("iverilog", "vvp", "verilator",
// "yosys", "make" or "g++"). The environment variable EnvVar(name), e.g.
// LSUGEN_VERILATOR, overrides the search of $PATH with a path (or a command
// name). Find runs the tool once to read its version (`iverilog -V`,
// `verilator --version`, `yosys -V`, ...), rejects versions known to be too
// old, and caches the answer, good or bad, for the same name and override.
// The error for a missing tool names the tool and the install command.
func Find(name string) (*Tool, error) {
	spec, ok := toolSpecs[name]
	if !ok {
		known := make([]string, 0, len(toolSpecs))
		for k := range toolSpecs {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("hdl: unknown tool %q (known: %s)", name, strings.Join(known, ", "))
	}
	env := EnvVar(name)
	override := os.Getenv(env)
	key := name + "\x00" + override

	findMu.Lock()
	defer findMu.Unlock()
	if r, ok := findCache[key]; ok {
		return r.tool, r.err
	}
	t, err := probe(name, spec, env, override)
	findCache[key] = findResult{t, err}
	return t, err
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.\d+)?`)

func probe(name string, spec toolSpec, env, override string) (*Tool, error) {
	look := name
	if override != "" {
		look = override
	}
	path, err := exec.LookPath(look)
	if err != nil {
		where := "not found in $PATH"
		if override != "" {
			where = fmt.Sprintf("not found at %s=%s", env, override)
		}
		return nil, fmt.Errorf("hdl: %s %s: %s", name, where, InstallHint(name))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, spec.versionArgs...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hdl: %s at %s does not run (`%s %s`: %v): %s\n%s",
			name, path, name, strings.Join(spec.versionArgs, " "), err, InstallHint(name), tail(out.Bytes()))
	}
	line := firstLine(out.String())
	m := versionRE.FindStringSubmatch(line)
	if m == nil {
		return nil, fmt.Errorf("hdl: %s at %s: no version number in %q", name, path, line)
	}
	t := &Tool{Name: name, Path: path, Version: m[0]}
	if spec.min != [2]int{} {
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if major < spec.min[0] || major == spec.min[0] && minor < spec.min[1] {
			why := ""
			if spec.why != "" {
				why = " (" + spec.why + ")"
			}
			return nil, fmt.Errorf("hdl: %s at %s is version %s, need %d.%d or newer%s: %s",
				name, path, t.Version, spec.min[0], spec.min[1], why, InstallHint(name))
		}
	}
	return t, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
