package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify/formal"
)

// formalChecks are the checks of lsugen verify --formal: each unit's RTL
// proved equivalent to its gates, in DIR/UNIT, or taken from the proof
// cache unless opt.NoCache; opt.GatesFile proves the gate-level files. A
// proof that fails prints its counterexample on stderr.
func formalChecks(sel []unit, timeout time.Duration, opt formal.Options, dir string) []verifyCheck {
	checks := make([]verifyCheck, len(sel))
	for i, u := range sel {
		checks[i] = verifyCheck{unit: i, engine: modeFormal, run: func(ctx context.Context) (verifyResult, string) {
			res := verifyResult{Engine: modeFormal}
			name := u.Design.Name
			r, err := proveUnit(ctx, u, filepath.Join(dir, name), timeout, opt)
			switch {
			case err != nil:
				res.Status, res.Error = statusError, err.Error()
				return res, err.Error() // names the unit
			case !r.Equivalent:
				res.Status, res.Method, res.Seconds = statusFail, r.Method, seconds(r.Elapsed)
				res.Failure = fmt.Sprintf("%s and %s differ; counterexample:\n%s", name, rtl.GatesModuleName(u.Design), r.Cex)
				return res, fmt.Sprintf("%s: %s and %s differ; counterexample:\n%s", name, name, rtl.GatesModuleName(u.Design), indentLines(r.Cex.String(), "  "))
			}
			res.Status, res.Method, res.Seconds = statusPass, r.Method, seconds(r.Elapsed)
			if r.Cached {
				res.Method += ", from the proof cache"
			}
			if u.Design.Pipeline == nil || u.Variable != nil {
				return res, ""
			}
			// A pipelined unit is also proved equal to its original
			// followed by L register stages.
			pr, err := provePipeline(ctx, u, filepath.Join(dir, name, "original"), filepath.Join(dir, name), timeout, opt)
			switch {
			case err != nil:
				res.Status, res.Error = statusError, err.Error()
				return res, fmt.Sprintf("%s: pipeline proof: %v", name, err)
			case !pr.Equivalent:
				res.Status, res.Method = statusFail, pr.Method
				res.Failure = fmt.Sprintf("%s differs from its combinational original followed by %d register stages; counterexample:\n%s", rtl.GatesModuleName(u.Design), pr.Latency, pr.Cex)
				return res, fmt.Sprintf("%s: %s", name, indentLines(res.Failure, "  "))
			}
			res.Method += fmt.Sprintf("; pipeline = original + %d register stages: %s", pr.Latency, pr.Method)
			if pr.Cached {
				res.Method += ", from the proof cache"
			}
			res.Seconds = seconds(r.Elapsed + pr.Elapsed)
			return res, ""
		}}
	}
	return checks
}

// proveUnit writes a unit's two Verilog files into udir and proves them
// equivalent there.
func proveUnit(ctx context.Context, u unit, udir string, timeout time.Duration, opt formal.Options) (*formal.Result, error) {
	set, err := verilogFiles([]unit{u})
	if err != nil {
		return nil, err
	}
	if err := writeAll(udir, set); err != nil {
		return nil, err
	}
	rtlFiles, gateFiles := rtl.Sources(u.Design)
	n := len(rtlFiles) - 1 // the unit's own files come last
	return formal.Prove(ctx, formal.Unit{
		Design:   u.Design,
		RTL:      filepath.Join(udir, rtlFiles[n]),
		Gates:    filepath.Join(udir, gateFiles[n]),
		RTLLibs:  joinAll(udir, rtlFiles[:n]),
		GateLibs: joinAll(udir, gateFiles[:n]),
	}, formal.Options{Dir: udir, Timeout: timeout, NoCache: opt.NoCache, GatesFile: opt.GatesFile})
}

// provePipeline proves a pipelined unit's gate-level module equal to its
// combinational original (generated again, its files in odir) followed by
// the pipeline's L register stages; the pipelined unit's files are in udir.
func provePipeline(ctx context.Context, u unit, odir, udir string, timeout time.Duration, opt formal.Options) (*formal.PipelinedResult, error) {
	fam, diags := units.For(u.Spec)
	if diags.HasErrors() {
		return nil, diags
	}
	comb, diags := fam.Generate(u.Spec)
	if diags.HasErrors() {
		return nil, diags
	}
	set, err := verilogFiles([]unit{{Spec: u.Spec, Built: units.Built{Design: comb}}})
	if err != nil {
		return nil, err
	}
	if err := writeAll(odir, set); err != nil {
		return nil, err
	}
	_, combGates := rtl.Sources(comb)
	_, pipeGates := rtl.Sources(u.Design)
	nc, np := len(combGates)-1, len(pipeGates)-1
	return formal.ProvePipelined(ctx,
		formal.Unit{Design: comb, Gates: filepath.Join(odir, combGates[nc]), GateLibs: joinAll(odir, combGates[:nc])},
		formal.Unit{Design: u.Design, Gates: filepath.Join(udir, pipeGates[np]), GateLibs: joinAll(udir, pipeGates[:np])},
		0, formal.Options{Dir: udir, Timeout: timeout, NoCache: opt.NoCache})
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
