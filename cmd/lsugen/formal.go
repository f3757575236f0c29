package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify/formal"
)

// formalChecks are the checks of lsugen verify --formal: each unit's two
// Verilog modules proved equivalent, in DIR/UNIT. A proof that fails
// prints its counterexample on stderr.
func formalChecks(sel []unit, timeout time.Duration, dir string) []verifyCheck {
	checks := make([]verifyCheck, len(sel))
	for i, u := range sel {
		checks[i] = verifyCheck{unit: i, engine: modeFormal, run: func(ctx context.Context) (verifyResult, string) {
			res := verifyResult{Engine: modeFormal}
			name := u.design.Name
			r, err := proveUnit(ctx, u, filepath.Join(dir, name), timeout)
			switch {
			case err != nil:
				res.Status, res.Error = statusError, err.Error()
				return res, err.Error() // names the unit
			case !r.Equivalent:
				res.Status, res.Method, res.Seconds = statusFail, r.Method, seconds(r.Elapsed)
				res.Failure = fmt.Sprintf("%s and %s differ; counterexample:\n%s", name, rtl.GatesModuleName(u.design), r.Cex)
				return res, fmt.Sprintf("%s: %s and %s differ; counterexample:\n%s", name, name, rtl.GatesModuleName(u.design), indentLines(r.Cex.String(), "  "))
			}
			res.Status, res.Method, res.Seconds = statusPass, r.Method, seconds(r.Elapsed)
			return res, ""
		}}
	}
	return checks
}

// proveUnit writes a unit's two Verilog files into udir and proves them
// equivalent there.
func proveUnit(ctx context.Context, u unit, udir string, timeout time.Duration) (*formal.Result, error) {
	set, err := verilogFiles([]unit{u})
	if err != nil {
		return nil, err
	}
	if err := writeAll(udir, set); err != nil {
		return nil, err
	}
	rtlFiles, gateFiles := rtl.Sources(u.design)
	n := len(rtlFiles) - 1 // the unit's own files come last
	return formal.Prove(ctx, formal.Unit{
		Design:   u.design,
		RTL:      filepath.Join(udir, rtlFiles[n]),
		Gates:    filepath.Join(udir, gateFiles[n]),
		RTLLibs:  joinAll(udir, rtlFiles[:n]),
		GateLibs: joinAll(udir, gateFiles[:n]),
	}, formal.Options{Dir: udir, Timeout: timeout})
}

func yosysVersion() string {
	if y, err := toolchain.Find("yosys"); err == nil {
		return y.Version
	}
	return "?"
}

// indentLines prefixes every line of s.
func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
