// Package toolchain is the one place where lsugen finds and runs external
// programs (Icarus Verilog, Verilator, Yosys, OpenSTA, make, cc, g++), in the
// spirit of Amaranth's amaranth/_toolchain: Find locates a tool, honours
// its override variable and checks its version; Cmd.Run runs it under one
// policy (timeout, bounded output, the whole process group killed on
// cancellation, make's variables kept out of the environment) and turns a
// failure into an *Error with the command line and the output's tail.
//
// It imports only the standard library, so that every package that drives
// a tool can use it.
package toolchain

import (
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

// Command returns a Cmd that runs t with args in dir.
func (t *Tool) Command(dir string, args ...string) *Cmd {
	return &Cmd{Path: t.Path, Args: args, Dir: dir}
}

// spec says how to probe and install one tool.
type spec struct {
	versionArgs []string
	pkg         string // Debian package
	min         [2]int // minimum major.minor; zero: any
	why         string // reason for the minimum
}

var specs = map[string]spec{
	"iverilog":  {[]string{"-V"}, "iverilog", [2]int{10, 0}, ""},
	"vvp":       {[]string{"-V"}, "iverilog", [2]int{10, 0}, ""},
	"verilator": {[]string{"--version"}, "verilator", [2]int{5, 0}, "the testbench needs --main and --timing"},
	"yosys":     {[]string{"-V"}, "yosys", [2]int{}, ""},
	"make":      {[]string{"--version"}, "make", [2]int{}, ""},
	"g++":       {[]string{"--version"}, "g++", [2]int{}, ""},
	"cc":        {[]string{"--version"}, "gcc", [2]int{}, ""},    // the C compiler: csource's headers are checked with it
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

// InstallHint is the advice printed when tool name is missing: the Debian
// package that has it and the override variable.
func InstallHint(name string) string {
	pkg := name
	if s, ok := specs[name]; ok {
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
// "yosys", "make", "cc", "g++" or "sta"). The environment variable EnvVar(name),
// e.g. LSUGEN_VERILATOR, overrides the search of $PATH with a path (or a
// command name). Find runs the tool once to read its version (`iverilog
// -V`, `verilator --version`, `yosys -V`, ...), rejects versions known to
// be too old, and caches the answer, good or bad, for the same name and
// override: a tool is probed once per process, not once per run. The error
// for a missing tool names the tool and the install command.
func Find(name string) (*Tool, error) {
	s, ok := specs[name]
	if !ok {
		known := make([]string, 0, len(specs))
		for k := range specs {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("toolchain: unknown tool %q (known: %s)", name, strings.Join(known, ", "))
	}
	env := EnvVar(name)
	override := os.Getenv(env)
	key := name + "\x00" + override

	findMu.Lock()
	defer findMu.Unlock()
	if r, ok := findCache[key]; ok {
		return r.tool, r.err
	}
	t, err := probe(name, s, env, override)
	findCache[key] = findResult{t, err}
	return t, err
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.\d+)?`)

// probeTimeout bounds a version query: a tool that hangs on --version is
// as good as missing.
const probeTimeout = 30 * time.Second

func probe(name string, s spec, env, override string) (*Tool, error) {
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
		return nil, fmt.Errorf("toolchain: %s %s: %s", name, where, InstallHint(name))
	}
	c := &Cmd{Path: path, Args: s.versionArgs, Timeout: probeTimeout}
	res, err := c.Run(context.Background())
	if err != nil {
		return nil, fmt.Errorf("toolchain: %s at %s does not run: %s\n%w", name, path, InstallHint(name), err)
	}
	line := firstLine(string(res.Output))
	m := versionRE.FindStringSubmatch(line)
	if m == nil {
		return nil, fmt.Errorf("toolchain: %s at %s: no version number in %q", name, path, line)
	}
	t := &Tool{Name: name, Path: path, Version: m[0]}
	if s.min != [2]int{} {
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if major < s.min[0] || major == s.min[0] && minor < s.min[1] {
			why := ""
			if s.why != "" {
				why = " (" + s.why + ")"
			}
			return nil, fmt.Errorf("toolchain: %s at %s is version %s, need %d.%d or newer%s: %s",
				name, path, t.Version, s.min[0], s.min[1], why, InstallHint(name))
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
