package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
)

// A flag name means one thing in every command: the flags several
// commands share are declared here, once, and TestFlags_OneMeaningPerName
// checks the whole command tree. The names below are the exceptions: the
// same kind of thing, described by each command in its own words.
var flagNameExceptions = map[string]struct {
	reason string
	// types: the flag's type may differ between commands too.
	types bool
}{
	"banks": {reason: "the bank count of a mod mapping: conflicts and pipesim --accelsim map banks with it (unless --hash), search --compare adds its mod N row"},
	"clock": {reason: "a clock period in time units: as --clock-fo4 (pipelines the units) in the commands that take it; in timing and profile, which had --clock first, the periods to count each unit's cycles at",
		types: true},
	"output":      {reason: "the command's output (-o): a directory for gen and fusesoc-gen, a file for search and pipesim"},
	"seed":        {reason: "the seed of the command's random numbers; each command says what they draw"},
	"svg":         {reason: "an SVG figure of the command's results; each command says which figure"},
	"timeout":     {reason: "a time limit on each external tool run; each command says which runs"},
	"timing-mode": {reason: "the timing model: where a command pipelines (--clock-fo4) the model that places the registers; where it times (timing, its sweep, profile) also the model its figures are in"},
	"top": {reason: "a choice of what to show: verify --rtl's top module by name, conflicts' first N instructions by count",
		types: true},
	"unit": {reason: "selects units by name: the commands that load specs take repeatable glob patterns (addUnitFlag), pipesim one elastic_pipeline unit",
		types: true},
}

// addJSONFlag declares --json.
func addJSONFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "json", false, "print the report as one JSON document (docs/json-reports.md)")
}

// addHashFlag declares --hash, the bank mapping by a hash unit of a spec.
func addHashFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "hash", "", "map banks with the hash unit UNIT of spec file SPEC, written SPEC:UNIT")
}

// addHashConfigFlag declares --hash-config, the configuration of a
// configurable --hash unit (conflicts, pipesim).
func addHashConfigFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "hash-config", "", "the configuration of a configurable --hash unit, its registers written KEY=VALUE,..., e.g. k1=0,k2=5,mask=31; a register of several fields as a list, sel=[3,4,5,6,7] (docs/tools.md)")
}

// refuseLoneConfig refuses --UNITFLAG-config given without a unit in
// --UNITFLAG (value unit): there is nothing for it to configure.
func refuseLoneConfig(fs *pflag.FlagSet, unitFlag, unit string) error {
	if fs.Changed(unitFlag+"-config") && unit == "" {
		return usagef("--%s-config configures the unit of --%s: give --%s SPEC:UNIT of a configurable hash unit", unitFlag, unitFlag, unitFlag)
	}
	return nil
}

// addBankBytesFlag declares --bank-bytes, the bank width that turns the
// byte addresses of Accel-Sim traces into word addresses.
func addBankBytesFlag(fs *pflag.FlagSet, p *int) {
	fs.IntVar(p, "bank-bytes", 4, "Accel-Sim traces: bank width in bytes, 4 or 8 (word address = byte address / N)")
}

// addWorkFlag declares --work.
func addWorkFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "work", "", "work directory for the files, scripts, builds and logs of the run (default: a temporary directory, kept only on failure)")
}

// addJobsFlag declares --jobs with its command's default.
func addJobsFlag(fs *pflag.FlagSet, p *int, def int) {
	fs.IntVar(p, "jobs", def, "checks run at once (verify: units and engines; crosscheck-timing: units)")
}

// addLibertyFlag declares --liberty.
func addLibertyFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "liberty", "", "cell library in liberty format, plain or gzipped")
}

// addOutputFlag declares -o (--output).
func addOutputFlag(fs *pflag.FlagSet, p *string, def, usage string) {
	fs.StringVarP(p, "output", "o", def, usage)
}

// normalizeFlag lets --o stand for --output, as -o always could.
func normalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if name == "o" {
		name = "output"
	}
	return pflag.NormalizedName(name)
}

// deprecatedFor is the annotation of a flag's old spelling: the new name.
const deprecatedFor = "lsugen-deprecated-for"

// deprecatedAlias declares old as a hidden second spelling of the flag
// newName, sharing its value; using it prints a warning.
func deprecatedAlias(fs *pflag.FlagSet, old, newName string) {
	f := fs.Lookup(newName)
	fs.Var(f.Value, old, "deprecated: use --"+newName)
	_ = fs.MarkHidden(old)
	_ = fs.SetAnnotation(old, deprecatedFor, []string{newName})
}

// flagChanged reports whether the flag (or its deprecated spelling) was
// given.
func flagChanged(fs *pflag.FlagSet, name string) bool {
	if fs.Changed(name) {
		return true
	}
	changed := false
	fs.VisitAll(func(f *pflag.Flag) {
		if to, ok := f.Annotations[deprecatedFor]; ok && to[0] == name && f.Changed {
			changed = true
		}
	})
	return changed
}

var unknownFlagRE = regexp.MustCompile(`^unknown flag: --(\S+)`)

// flagError turns pflag's parse errors into usage errors; for an unknown
// flag it suggests the command's closest flag name.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := unknownFlagRE.FindStringSubmatch(msg); m != nil {
		if s := closestFlag(cmd, m[1]); s != "" {
			msg += fmt.Sprintf("\n\nDid you mean this?\n\t--%s", s)
		}
	}
	return usagef("%s", msg)
}

// closestFlag is the visible flag of cmd nearest to name: a name that
// starts with it, or one within an edit distance of a third of its
// length (at least 2); "" if none is.
func closestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 1<<30
	limit := max(2, len(name)/3)
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := specs.EditDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) {
			d = 0
		}
		if d <= limit && d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// singleDashLongFlags rewrites -name and -name=value, the spelling Go's
// flag package accepted, into --name for the long flags of cmd, so that
// scripts written for earlier versions keep working. Arguments after --,
// shorthands (-o, -h) and the values of flags are left alone.
func singleDashLongFlags(cmd *cobra.Command, args []string) []string {
	cmd.InitDefaultHelpFlag()
	fs := cmd.Flags()
	out := append([]string(nil), args...)
	takesValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal == "" }
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			continue
		}
		long := strings.HasPrefix(a, "--")
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case long:
			f = fs.Lookup(name)
		case len(name) == 1 && fs.ShorthandLookup(name) != nil:
			f = fs.ShorthandLookup(name)
		default:
			if f = fs.Lookup(name); f != nil {
				out[i] = "-" + a
			}
		}
		if !hasValue && takesValue(f) {
			i++ // the next argument is this flag's value
		}
	}
	return out
}

// addToolMemoryFlag declares --tool-memory, the address-space limit of
// each external tool (simulator, compiler, Yosys, ABC, OpenSTA) and of the
// processes it starts: toolchain.DefaultMemoryLimit, reset to its standard
// value with every command line, as each run() builds its commands anew.
func addToolMemoryFlag(fs *pflag.FlagSet) {
	toolchain.DefaultMemoryLimit = toolchain.StandardMemoryLimit
	fs.Var(memoryLimitValue{&toolchain.DefaultMemoryLimit}, "tool-memory",
		"address-space limit of each external tool process, e.g. 8GiB or 512MiB (0: none); a tool past it fails with the limit named")
}

// memoryLimitValue is a byte count with an optional KiB, MiB, GiB or TiB
// suffix.
type memoryLimitValue struct{ p *uint64 }

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}}

func (v memoryLimitValue) Type() string { return "size" }

func (v memoryLimitValue) String() string {
	if v.p == nil {
		return ""
	}
	n := *v.p
	for _, u := range sizeUnits {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatUint(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatUint(n, 10)
}

func (v memoryLimitValue) Set(s string) error {
	num, shift := s, uint(0)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSuffix(s, u.suffix), u.shift
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > (1<<50)>>shift {
		return fmt.Errorf("want a byte count up to 1024TiB with an optional KiB, MiB, GiB or TiB suffix, e.g. 8GiB")
	}
	if n != 0 && n<<shift < 64<<20 {
		return fmt.Errorf("%s is below 64MiB, too little for any tool to start", s)
	}
	*v.p = n << shift
	return nil
}
