package main

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// testbenchFiles renders every unit's standalone testbench NAME_tb.v and
// golden vector file NAME.vec (`lsugen gen --tb`).
func testbenchFiles(us []unit) (map[string][]byte, error) {
	set := map[string][]byte{}
	for _, u := range us {
		g, err := units.Golden(u.Spec, u.Built)
		if err != nil {
			return nil, err
		}
		info := rtl.Info{Version: gen.GeneratedBy(), Source: source(u.Spec)}
		set[verify.TestbenchFileName(u.Design)] = g.Testbench(info)
		set[verify.VectorFileName(u.Design)] = g.VectorFile(info)
	}
	return set, nil
}

// mergeFiles adds the files of src to dst; two files of one name (a unit
// named like another unit's testbench, say) are an error, not an overwrite.
func mergeFiles(dst, src map[string][]byte) error {
	names := make([]string, 0, len(src))
	for name := range src {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if old, dup := dst[name]; dup {
			if bytes.Equal(old, src[name]) {
				continue // a unit's file again, written for a unit that instantiates it
			}
			return fmt.Errorf("two generated files are named %s: rename one of the units", name)
		}
		dst[name] = src[name]
	}
	return nil
}

// rtlOptions are the options of lsugen verify --rtl for the sources:
// include directories, macros, waveforms (verify.RTLCheck's fields).
type rtlOptions struct {
	includeDirs []string
	defines     []string
	vcd         bool
	vcdFrom     int
}

// rtlOptionFlags are the flags of rtlOptions, for verifyModeFlags.
var rtlOptionFlags = []string{"include-dir", "define", "vcd", "vcd-from"}

// addRTLFlags declares verify --rtl's -I, -D, --vcd and --vcd-from.
func addRTLFlags(fs *pflag.FlagSet, o *rtlOptions) {
	fs.StringArrayVarP(&o.includeDirs, "include-dir", "I", nil, "with --rtl: search `DIR` for the sources' include files (repeatable)")
	fs.StringArrayVarP(&o.defines, "define", "D", nil, "with --rtl: define the macro `NAME[=VALUE]` for the sources (repeatable; NAME alone is NAME=1;\nDUT is the testbench's: name the module with --top)")
	fs.BoolVar(&o.vcd, "vcd", false, "with --rtl: leave each simulator's waveform of the run in the work directory,\nkept: DIR/UNIT/ENGINE/UNIT_ENGINE.vcd")
	fs.IntVar(&o.vcdFrom, "vcd-from", 0, "with --rtl: start the waveform at vector (cycle) `N`; implies --vcd")
}

// macroName is a preprocessor macro name that both simulators take on
// their command lines.
var macroName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check refuses missing include directories and bad macros (exit status
// 2), before any unit is loaded, as verify.RTLCheck would refuse them in
// every check; --vcd-from implies --vcd.
func (o *rtlOptions) check(fs *pflag.FlagSet) error {
	for _, dir := range o.includeDirs {
		st, err := os.Stat(dir)
		if err != nil {
			return usagef("-I %s: %v", dir, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return usagef("-I %s: not a directory", dir)
		}
	}
	for _, def := range o.defines {
		name, value, _ := strings.Cut(def, "=")
		switch {
		case !macroName.MatchString(name):
			return usagef("-D %s: %q is not a macro name", def, name)
		case name == verify.DUTMacro:
			return usagef("-D %s: %s is the testbench's macro for the module to check; name the module with --top", def, verify.DUTMacro)
		case strings.ContainsAny(value, "\n\r"):
			return usagef("-D %s: a value on more than one line", def)
		}
	}
	if o.vcdFrom < 0 {
		return usagef("--vcd-from %d: a vector number, 0 or more", o.vcdFrom)
	}
	if fs.Changed("vcd-from") {
		o.vcd = true
	}
	return nil
}

// rtlChecks are the checks of lsugen verify --rtl FILE.v...: for each
// unit and engine, the unit's standalone testbench and golden vectors,
// exactly as lsugen gen --tb writes them, run against the module in the
// files (the unit's name, or --top), with as many vectors again drawn for
// this run (a seed from crypto/rand), so that a
// module that only remembers the golden vectors' answers fails. Each
// check works in its own directory, DIR/UNIT/ENGINE; a unit's vectors are
// made once.
func rtlChecks(sel []unit, engines []verify.Engine, files []string, top string, opt rtlOptions, dir string) []verifyCheck {
	var checks []verifyCheck
	var b [8]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand's documented promise)
	seed := binary.LittleEndian.Uint64(b[:])
	for i, u := range sel {
		golden := sync.OnceValues(func() (*verify.GoldenSet, error) { return units.GoldenDrawn(u.Spec, u.Built, seed) })
		for _, e := range engines {
			checks = append(checks, verifyCheck{unit: i, engine: string(e), run: func(ctx context.Context) (verifyResult, string) {
				return rtlCheck(ctx, u, golden, e, files, cmp.Or(top, u.Design.Name), opt, filepath.Join(dir, u.Design.Name, string(e)))
			}})
		}
	}
	return checks
}

// rtlCheck runs one engine of verify --rtl on one unit. A simulator that
// cannot compile the sources (Icarus and some SystemVerilog) is skipped
// with the library's note: rtlVerdict decides whether the others checked
// the unit.
func rtlCheck(ctx context.Context, u unit, golden func() (*verify.GoldenSet, error), e verify.Engine, files []string, top string, opt rtlOptions, dir string) (verifyResult, string) {
	res := verifyResult{Engine: string(e)}
	fail := func(err error) (verifyResult, string) {
		res.Status, res.Error = statusError, err.Error()
		return res, fmt.Sprintf("%s: module %s (%s): %v", u.Design.Name, top, e, err)
	}
	g, err := golden()
	if err != nil {
		return fail(err)
	}
	check := verify.RTLCheck{
		Golden:      g,
		Info:        rtl.Info{Version: gen.GeneratedBy(), Source: source(u.Spec)},
		Sources:     files,
		Top:         top,
		Dir:         dir,
		IncludeDirs: opt.includeDirs,
		Defines:     opt.defines,
		VCD:         opt.vcd,
		VCDFrom:     opt.vcdFrom,
	}
	results, err := check.Run(ctx, []verify.Engine{e})
	if len(results) == 1 && results[0].Skipped {
		// Run's error says that no simulator of this one check could run;
		// the unit's other engines may have.
		r := results[0]
		res.Status, res.Error, res.Seconds = statusSkipped, r.Note, seconds(r.Elapsed)
		return res, ""
	}
	if err != nil {
		return fail(err)
	}
	r := results[0]
	res.Vectors, res.Seconds = r.Count, seconds(r.Elapsed)
	wave := ""
	if r.VCD != "" {
		wave = "; waveform in " + r.VCD
	}
	if r.Passed {
		res.Status = statusPass
		if wave != "" {
			return res, fmt.Sprintf("%s: module %s (%s): passed%s", u.Design.Name, top, e, wave)
		}
		return res, ""
	}
	res.Status, res.Failure = statusFail, r.Failure+wave
	return res, fmt.Sprintf("%s: module %s (%s): %s", u.Design.Name, top, e, res.Failure)
}

// rtlSkipped reports whether a result of verify --rtl is a simulator
// that could not compile the sources, not a check the run left out
// (interrupted).
func rtlSkipped(res verifyResult) bool {
	return res.Status == statusSkipped && res.Error != "interrupted"
}

// rtlVerdict decides verify --rtl after count: a simulator that could not
// compile the sources does not fail the run when another one checked every
// unit; a unit that no simulator could check does, and is named on
// stderr.
func rtlVerdict(rep *verifyReport, stderr io.Writer) {
	passed := true
	for _, u := range rep.Units {
		checked, skipped := false, false
		for _, res := range u.Results {
			switch {
			case res.Status == statusPass:
				checked = true
			case rtlSkipped(res):
				skipped = true
			default:
				passed = false
			}
		}
		if skipped && !checked {
			fmt.Fprintf(stderr, "lsugen verify: %s: no simulator could check module %s\n", u.Name, u.Module)
		}
		passed = passed && checked
	}
	rep.Passed = passed
}

// writeRTLVerdict prints the verdict of a passed verify --rtl run: the
// simulators that checked each module, and those that could not.
func writeRTLVerdict(w io.Writer, rep *verifyReport) {
	for _, u := range rep.Units {
		var ran, skipped []string
		count := 0
		for _, res := range u.Results {
			if rtlSkipped(res) {
				skipped = append(skipped, res.Engine)
				continue
			}
			ran, count = append(ran, res.Engine), res.Vectors
		}
		line := fmt.Sprintf("module %s matches the %d golden %s of %s under %s", u.Module, count, countWord(&u), u.Name, strings.Join(ran, " and "))
		if len(skipped) > 0 {
			line += fmt.Sprintf(" (not checked under %s: see above)", strings.Join(skipped, " and "))
		}
		fmt.Fprintln(w, line)
	}
}
