package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/profile"
	"github.com/lsugen/lsugen/units"
)

const profileLong = `The coalescing profile of the global loads and stores (LDG, STG) of
Accel-Sim traces (a kernelslist.g or kernel-N.traceg[.xz]), per PC and
per kernel: the fraction of warp accesses whose active lanes' addresses
are monotonic (non-decreasing or non-increasing, 003_*'s statistic), the
histogram of unique blocks of --block-bytes per access, and the cycles the
all-to-all and speculative coalescers take at each --clock period (FO4): the
speculative coalescer answers a monotonic access on its fast path
(detector and neighbor comparator) and the others on its slow path. The
neighbor comparator alone is exact only where each block's active lanes
are contiguous. The coalescers are the 32-lane all_to_all, neighbor and
speculative units of --coalescers SPEC (the first of each), timed as
lsugen timing times them; by default the thesis's units of
specs/coalescer_thesis.hcl. ATOMG/RED, generic LD/ST and other spaces are
counted, not profiled. See docs/coalescing-profile.md.`

// Limits checked before any work.
const (
	maxProfileTraces = 1024
	maxProfileClock  = 1e6 // FO4
)

// builtinCoalescersName names the built-in spec in diagnostics and reports.
const builtinCoalescersName = "specs/coalescer_thesis.hcl (built in)"

// builtinCoalescers are the 32-lane units of specs/coalescer_thesis.hcl,
// so that the command works outside the repository;
// TestProfile_BuiltinIsThesis checks that they time the same.
const builtinCoalescers = `
coalescer "coalesce_a2a_32" {
  structure = "all_to_all"
  lanes     = 32
  addr_bits = 32
}

coalescer "coalesce_nbr_32" {
  structure = "neighbor"
  lanes     = 32
  addr_bits = 32
}

monotonicity_detector "monotonic_32" {
  lanes     = 32
  addr_bits = 32
  adder     = "cla4"
}

coalescer "coalesce_spec_32" {
  structure = "speculative"
  lanes     = 32
  addr_bits = 32
}
`

// profileDoc is `lsugen profile --json`.
type profileDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*profile.Report
}

func newProfileCmd(a *app) *cobra.Command {
	var (
		asJSON     bool
		blockBytes int
		clocks     string
		spec, mode string
		specTiming string
	)
	cmd := &cobra.Command{
		Use:   "profile [--json] [--block-bytes N] [--clock FO4,...] [--mode unsized|sized] [--spec-timing combined|separate] [--coalescers SPEC] TRACE...",
		Short: "coalescing profile of a kernel's global loads and stores: monotonic fraction, unique blocks, coalescer cycles",
		Long:  profileLong,
		RunE: func(cmd *cobra.Command, traces []string) error {
			if len(traces) == 0 {
				return usagef("no trace files given (a kernelslist.g or kernel-N.traceg[.xz])")
			}
			if len(traces) > maxProfileTraces {
				return usagef("%d trace files: at most %d", len(traces), maxProfileTraces)
			}
			if blockBytes < 1 || blockBytes > profile.MaxBlockBytes || blockBytes&(blockBytes-1) != 0 {
				return usagef("--block-bytes %d: want a power of two from 1 to %d", blockBytes, profile.MaxBlockBytes)
			}
			periods, err := parseClocks(clocks)
			if err != nil {
				return usagef("%v", err)
			}
			if len(periods) == 0 || len(periods) > profile.MaxClocks {
				return usagef("--clock %q: want 1 to %d clock periods", clocks, profile.MaxClocks)
			}
			for _, p := range periods {
				if p > maxProfileClock {
					return usagef("--clock %v: want at most %g FO4", p, maxProfileClock)
				}
			}
			if timing.Mode(mode) != timing.Unsized && timing.Mode(mode) != timing.Sized {
				return usagef("--mode %q: want unsized or sized", mode)
			}
			if specTiming != specCombined && specTiming != specSeparate {
				return usagef("--spec-timing %q: want %s or %s", specTiming, specCombined, specSeparate)
			}
			seen := map[string]bool{}
			for _, t := range traces {
				if seen[filepath.Clean(t)] {
					return usagef("%s given twice: its kernels would count twice", t)
				}
				seen[filepath.Clean(t)] = true
				if !accelsim.IsTracePath(t) {
					return usagef("%s: not an Accel-Sim trace (want a kernelslist.g, *.traceg or *.traceg.xz)", t)
				}
				if _, err := os.Stat(t); err != nil {
					return badInput(err)
				}
			}
			tm, err := coalescerTiming(spec, periods, timing.Mode(mode), specTiming, a.stderr)
			if err != nil {
				return err
			}
			p, err := profile.New(profile.Options{BlockBytes: uint64(blockBytes), Timing: tm})
			if err != nil {
				return usagef("%v", err)
			}
			for _, t := range traces {
				if err := profileTrace(p, t); err != nil {
					return badInput(err)
				}
			}
			rep := p.Report()
			if asJSON {
				return printJSON(a.stdout, profileDoc{Version: gen.Version, Report: rep})
			}
			return rep.WriteTable(a.stdout)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.IntVar(&blockBytes, "block-bytes", 128, "block size in bytes (a power of two): unique blocks per access, and the neighbor comparator's blocks")
	fs.StringVar(&clocks, "clock", "40", "comma-separated clock periods in FO4: report the cycles each unit needs at each")
	fs.StringVar(&mode, "mode", string(timing.Unsized), "unsized: gates as built, unbuffered fanout; sized: logical-effort buffer trees on every stage")
	fs.StringVar(&specTiming, "spec-timing", specCombined, "how the speculative coalescer's fast and slow paths are timed: combined (inside the generated speculative unit) or separate (003_*'s method: the detector, neighbor and all-to-all units each alone)")
	fs.StringVar(&spec, "coalescers", "", "spec file whose first 32-lane all_to_all, neighbor and speculative coalescers are timed (default: the 32-lane units of specs/coalescer_thesis.hcl, built in)")
	return cmd
}

// profileTrace streams one trace argument through p.
func profileTrace(p *profile.Profiler, path string) (err error) {
	r, err := accelsim.Open(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		acc, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := p.Add(path, acc); err != nil {
			return err
		}
	}
}

// Ways to time the speculative coalescer's two paths (--spec-timing).
const (
	// specCombined times the paths inside the generated speculative unit.
	specCombined = "combined"
	// specSeparate is 003_*'s method (§5.1): the detector, neighbor and
	// all-to-all units timed each on its own; fast = the slower of
	// detector and neighbor, slow = the slower of detector and all-to-all.
	specSeparate = "separate"
)

// coalescerTiming loads the coalescers (the built-in thesis units when
// path is ""), picks the first 32-lane unit of each structure (and
// detector, for specSeparate), generates and times them, and counts
// their cycles at each clock. Spec diagnostics are printed to stderr.
func coalescerTiming(path string, clocks []float64, mode timing.Mode, spec string, stderr io.Writer) (profile.Timing, error) {
	loader := specs.NewLoader()
	var (
		file  *specs.File
		diags hcl.Diagnostics
		name  = path
	)
	if path == "" {
		name = builtinCoalescersName
		file, diags = loader.Parse([]byte(builtinCoalescers), "coalescer_thesis.hcl")
	} else {
		file, diags = loader.Load(path)
	}
	if diags.HasErrors() {
		printDiagnostics(stderr, loader, diags)
		return profile.Timing{}, errBadInput
	}
	// The first 32-lane unit of each structure; "detector" for the detector.
	chosen := map[string]specs.Unit{}
	for _, u := range file.Units {
		key := ""
		switch u := u.(type) {
		case *specs.Coalescer:
			if u.Lanes == accelsim.WarpSize {
				key = string(u.Structure)
			}
		case *specs.MonotonicityDetector:
			if u.Lanes == accelsim.WarpSize {
				key = "detector"
			}
		}
		if key != "" && chosen[key] == nil {
			chosen[key] = u
		}
	}
	need := []string{string(specs.AllToAll), string(specs.Neighbor), string(specs.Speculative)}
	if spec == specSeparate {
		need = append(need, "detector")
	}
	opt := timing.DefaultOptions()
	opt.Mode = mode
	timed := map[string]profile.UnitTiming{}
	var specDesign *netlist.Design
	for _, key := range need {
		u := chosen[key]
		if u == nil {
			what := key + " coalescer"
			if key == "detector" {
				what = "monotonicity_detector"
			}
			return profile.Timing{}, badInput(fmt.Errorf("%s declares no %d-lane %s (the traces' warps have %d lanes)", name, accelsim.WarpSize, what, accelsim.WarpSize))
		}
		d, gd := units.Generate(u)
		if gd.HasErrors() {
			printDiagnostics(stderr, loader, gd)
			return profile.Timing{}, errBadInput
		}
		res, err := timing.Analyze(d, opt)
		if err != nil {
			return profile.Timing{}, fmt.Errorf("%s: %w", u.UnitName(), err)
		}
		ut := profile.UnitTiming{Unit: u.UnitName(), FO4: res.FO4, Cycles: cyclesAt(res.FO4, clocks)}
		switch u := u.(type) {
		case *specs.Coalescer:
			ut.Lanes, ut.AddrBits, ut.BlockBits = u.Lanes, u.AddrBits, u.BlockBits
		case *specs.MonotonicityDetector:
			ut.Lanes, ut.AddrBits = u.Lanes, u.AddrBits
		}
		timed[key] = ut
		if key == string(specs.Speculative) {
			specDesign = d
		}
	}
	tm := profile.Timing{ClocksFO4: clocks, Mode: string(mode), SpecTiming: spec, Spec: name,
		AllToAll: timed[string(specs.AllToAll)], Neighbor: timed[string(specs.Neighbor)]}
	if spec == specSeparate {
		slower := func(a, b profile.UnitTiming) profile.UnitTiming {
			if b.FO4 > a.FO4 {
				a, b = b, a
			}
			a.Unit = fmt.Sprintf("%s, %s", a.Unit, b.Unit)
			return a
		}
		tm.SpeculativeFast = slower(timed["detector"], timed[string(specs.Neighbor)])
		tm.SpeculativeSlow = slower(timed["detector"], timed[string(specs.AllToAll)])
		return tm, nil
	}
	parts, err := speculativeParts(specDesign, opt)
	if err != nil {
		return profile.Timing{}, badInput(fmt.Errorf("%s: %w", timed[string(specs.Speculative)].Unit, err))
	}
	tm.SpeculativeParts = parts
	for _, fast := range []bool{true, false} {
		ut := timed[string(specs.Speculative)]
		pd, err := speculativePath(specDesign, fast)
		if err != nil {
			return profile.Timing{}, badInput(fmt.Errorf("%s: %w", ut.Unit, err))
		}
		pr, err := timing.Analyze(pd, opt)
		if err != nil {
			return profile.Timing{}, fmt.Errorf("%s: %w", ut.Unit, err)
		}
		ut.FO4, ut.Cycles = pr.FO4, cyclesAt(pr.FO4, clocks)
		if fast {
			tm.SpeculativeFast = ut
		} else {
			tm.SpeculativeSlow = ut
		}
	}
	return tm, nil
}

// speculativePath returns a copy of a speculative coalescer's design
// in which every multiplexer selected by monotonic_o has its other data
// input tied to 0: for the fast path (monotonic) the all-to-all result
// (A0), for the slow path the neighbor result (A1). Its critical path is
// then that path: the detector to the multiplexers' select, and the
// chosen comparator through them. The cut comparator's gates stay, so
// that the address inputs carry their load.
func speculativePath(d *netlist.Design, fast bool) (*netlist.Design, error) {
	mono := d.Port("monotonic_o")
	if mono == nil || mono.Width() != 1 {
		return nil, errors.New("no 1-bit monotonic_o output: not a speculative coalescer")
	}
	sel := mono.Bits[0]
	cp := *d
	cp.Gates = make([]netlist.Gate, len(d.Gates))
	cp.Paths = nil
	cut := 0
	for i, g := range d.Gates {
		if g.Kind == netlist.MUX2 && g.In[0] == sel {
			if fast {
				g.In = []netlist.Net{sel, netlist.Const0, g.In[2]}
			} else {
				g.In = []netlist.Net{sel, g.In[1], netlist.Const0}
			}
			cut++
		}
		cp.Gates[i] = g
	}
	if cut == 0 {
		return nil, errors.New("no multiplexer selected by monotonic_o: cannot time its fast and slow paths")
	}
	return &cp, nil
}

// cyclesAt is the cycles a path of fo4 needs at each clock.
func cyclesAt(fo4 float64, clocks []float64) []int {
	out := make([]int, len(clocks))
	for i, c := range clocks {
		out[i] = timing.CyclesAt(fo4, c)
	}
	return out
}

// speculativeParts times, inside a speculative coalescer, the arrival of
// the detector's result (monotonic_o, the output multiplexers' select)
// and of the all-to-all and neighbor results at the multiplexers.
func speculativeParts(d *netlist.Design, opt timing.Options) ([]profile.PathTiming, error) {
	mono, addr := d.Port("monotonic_o"), d.Port("addr_i")
	if mono == nil || mono.Width() != 1 || addr == nil {
		return nil, errors.New("no addr_i input and 1-bit monotonic_o output: not a speculative coalescer")
	}
	sel := mono.Bits[0]
	var all, nbr netlist.Bus
	for _, g := range d.Gates {
		if g.Kind == netlist.MUX2 && g.In[0] == sel {
			all, nbr = append(all, g.In[1]), append(nbr, g.In[2])
		}
	}
	cp := *d
	cp.Paths = []netlist.Path{
		{Name: "detector", From: addr.Bits, To: netlist.Bus{sel}},
		{Name: "all_to_all", From: addr.Bits, To: all},
		{Name: "neighbor", From: addr.Bits, To: nbr},
	}
	r, err := timing.Analyze(&cp, opt)
	if err != nil {
		return nil, err
	}
	out := make([]profile.PathTiming, len(r.Paths))
	for i, p := range r.Paths {
		out[i] = profile.PathTiming{Name: p.Name, FO4: p.FO4}
	}
	return out, nil
}
