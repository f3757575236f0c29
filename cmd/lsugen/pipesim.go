package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/pipesim"
)

const pipesimLong = `  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --trace FILE
  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --accelsim TRACE
                 [--banks N | --hash SPEC:UNIT] [--bank-bytes 4|8] [--write-trace FILE]
  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --synthetic|--preset NAME
                 [--warps N] [--instructions N] [--shmem F] [--mem F] [--degrees D:P,...]
                 [--static K] [--irregular] [--seed S] [--write-trace FILE]

Runs the cycle-accurate model of the spec's elastic_pipeline unit (the first,
or --unit) as baseline_unified, baseline_split and elastic (its variant
attribute is ignored), each without and with the bank-conflict aware warp
ready mask (the spec's warp_ready_mask, or --mask; without one the paper's:
256 sets x 2 ways, 14-bit PCs), and reports cycles, IPC, stalls by cause,
scheduling fails and writeback bubbles per run.

System model: strict barrel processing (one instruction in flight per warp;
a warp is ready again the cycle after its last subwarp is written back);
each warp instruction is warp_size/simd_width subwarps offered in
consecutive cycles, a stalled subwarp is offered again; round robin among
the ready warps (after the mask).

Trace format (--trace), one warp instruction per line, '#' comments:
  WARP KIND PC [DEGREE...]
  0 alu 0x10
  0 shmem 0x11 2          # every subwarp 2-way conflicting
  1 shmem 0x11 1 2 4 1    # one degree per subwarp
  1 mem 0x12
WARP 0..63 (below warp_contexts), KIND alu|shmem|mem, PC decimal or 0x-hex
below 2^pc_bits; shmem lines carry 1 or warp_size/simd_width conflict
degrees, each 1..simd_width. A warp's lines are its program in order.

Accel-Sim traces (--accelsim kernelslist.g | kernel-N.traceg[.xz], streamed;
warp_size must be 32): every traced instruction is one instruction of its
warp's program: shared-memory ones shmem, other memory ones mem, the rest
alu. A shmem instruction's degree for subwarp s (lanes s*simd_width ..
(s+1)*simd_width-1) is the bank cycles of its active lanes under --banks N
(mod N, default 32) or --hash SPEC:UNIT, words of --bank-bytes bytes: the
sum of the degrees of the access's phases within the subwarp (64- and
128-bit accesses are served in phases, docs/traces.md), at least 1, at most
simd_width. PC = byte PC / 16 mod 2^pc_bits. The g-th warp of the trace
(in trace order over thread blocks and kernels) runs on warp context g mod
warp_contexts, after the warps before it there.

Synthetic workloads (--synthetic): all warps run one kernel of --static K
instructions (PCs 0..K-1) in a loop. --preset NAME takes warps, K, the
shared-memory intensity, the mean conflict degree and irregularity from a
row of the paper's Table 4 (` + "aes_encrypt, aes_decrypt, reduction, transpose,\ndct, idct, dct_short, idct_short" + `) and runs K x ceil(1000/K) instructions
per warp; flags given explicitly override the preset. The global-memory
intensity of the presets (--mem 0.05) is an assumption, not from the paper.

Work: the study's simulated cycles are estimated before it runs (from the
flags for a synthetic workload, from the workload read otherwise) and a
study whose CPU time would be over --work-budget (default 10m) is refused. A
study that takes longer than 2 s shows its progress on standard error
(--quiet: none).`

// pipesimFlags are the flags of lsugen pipesim.
type pipesimFlags struct {
	asJSON, synthetic, irregular, quiet                             bool
	out, unitName, maskName, tracePath, preset, degrees, writeTrace string
	accelSim, hash                                                  string
	warps, instrs, static, banks, bankBytes                         int
	shmem, mem                                                      float64
	seed                                                            uint64
	maxCycles                                                       int64
	workBudget                                                      time.Duration
}

// newPipesimCmd runs the pipeline study.
func newPipesimCmd(a *app) *cobra.Command {
	f := &pipesimFlags{}
	cmd := &cobra.Command{
		Use:   "pipesim [--json] [-o FILE] SPEC --trace FILE | --accelsim TRACE | --synthetic|--preset NAME [flags]",
		Short: "cycles, stalls and IPC of the elastic pipeline and its baselines",
		Long:  pipesimLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runPipesim(a, cmd.Flags(), f, pos)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &f.asJSON)
	addOutputFlag(fs, &f.out, "", "write the report to FILE (atomically) instead of standard output")
	fs.StringVar(&f.unitName, "unit", "", "the elastic_pipeline unit to study (default: the spec's first)")
	fs.StringVar(&f.maskName, "mask", "", "the warp_ready_mask unit (default: the spec's first, else the paper's)")
	fs.StringVar(&f.tracePath, "trace", "", "read the workload from this trace file")
	fs.StringVar(&f.accelSim, "accelsim", "", "read the workload from an Accel-Sim trace: kernelslist.g, kernel-N.traceg or .traceg.xz")
	fs.IntVar(&f.banks, "banks", 32, fmt.Sprintf("--accelsim without --hash: bank = word address mod N, any N from 1 to %d", conflicts.MaxMapSize))
	addHashFlag(fs, &f.hash)
	addBankBytesFlag(fs, &f.bankBytes)
	fs.BoolVar(&f.synthetic, "synthetic", false, "generate the workload (flags marked synthetic)")
	fs.StringVar(&f.preset, "preset", "", "synthetic workload from a row of Table 4: "+strings.Join(pipesim.PresetNames(), ", "))
	d := pipesim.DefaultSynthetic
	fs.IntVar(&f.warps, "warps", d.Warps, "synthetic: warps (at most the mask's warp contexts)")
	fs.IntVar(&f.instrs, "instructions", d.Instructions, "synthetic: warp instructions per warp")
	fs.Float64Var(&f.shmem, "shmem", d.Shmem, "synthetic: shared-memory intensity, the fraction of shmem instructions")
	fs.Float64Var(&f.mem, "mem", d.Mem, "synthetic: global-memory intensity, the fraction of mem instructions")
	fs.StringVar(&f.degrees, "degrees", d.Degrees.String(), "synthetic: conflict-degree distribution DEGREE:WEIGHT,...")
	fs.IntVar(&f.static, "static", d.Static, "synthetic: static instructions K of the kernel")
	fs.BoolVar(&f.irregular, "irregular", d.Irregular, "synthetic: draw each subwarp's degree at every execution, not once per static instruction")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "synthetic: random seed of the workload; the same seed gives the same workload")
	fs.StringVar(&f.writeTrace, "write-trace", "", "synthetic and --accelsim: also write the workload as a trace file (--trace's format)")
	fs.Int64Var(&f.maxCycles, "max-cycles", 0, "stop a run that has not finished after N cycles with an error (0: a bound no terminating run reaches)")
	addWorkBudgetFlag(fs, &f.workBudget)
	addQuietFlag(fs, &f.quiet)
	return cmd
}

func runPipesim(a *app, fs *pflag.FlagSet, f *pipesimFlags, pos []string) error {
	if len(pos) != 1 {
		return usagef("want exactly one SPEC file, got %d", len(pos))
	}
	isSynth := f.synthetic || f.preset != ""
	var given []string
	for _, src := range []struct {
		on   bool
		name string
	}{{f.tracePath != "", "--trace"}, {f.accelSim != "", "--accelsim"}, {isSynth, "--synthetic/--preset"}} {
		if src.on {
			given = append(given, src.name)
		}
	}
	switch {
	case len(given) > 1:
		return usagef("%s exclude each other", strings.Join(given, " and "))
	case len(given) == 0:
		return usagef("no workload: give --trace FILE or --synthetic/--preset NAME, or --accelsim TRACE")
	}
	if f.accelSim == "" {
		for _, n := range []string{"banks", "hash", "bank-bytes"} {
			if fs.Changed(n) {
				return usagef("--%s applies to --accelsim workloads only", n)
			}
		}
	} else if f.bankBytes != 4 && f.bankBytes != 8 {
		return usagef("--bank-bytes %d: want 4 or 8", f.bankBytes)
	} else if fs.Changed("banks") && f.hash != "" {
		return usagef("--banks and --hash both give the bank mapping: use one")
	}
	if !isSynth {
		for _, n := range []string{"warps", "instructions", "shmem", "mem", "degrees", "static", "irregular", "seed", "write-trace"} {
			if n == "write-trace" && fs.Changed(n) && f.accelSim == "" {
				return usagef("--write-trace applies to synthetic and --accelsim workloads only")
			}
			if n != "write-trace" && fs.Changed(n) {
				return usagef("--%s applies to synthetic workloads only", n)
			}
		}
	}
	var pre pipesim.Preset
	if f.preset != "" {
		var ok bool
		if pre, ok = pipesim.LookupPreset(f.preset); !ok {
			return usagef("--preset %q: want one of %s", f.preset, strings.Join(pipesim.PresetNames(), ", "))
		}
	}
	dist, err := pipesim.ParseDist(f.degrees)
	if err != nil {
		return usagef("--degrees: %v", err)
	}
	if f.maxCycles < 0 {
		return usagef("--max-cycles %d: want 0 or more", f.maxCycles)
	}
	if err := checkWorkBudgetFlag(f.workBudget); err != nil {
		return err
	}

	spec := pos[0]
	pipe, mask, err := loadPipeline(spec, f.unitName, f.maskName, a.stderr)
	if err != nil {
		return err
	}
	shape := pipesim.Shape{Subwarps: pipe.WarpSize / pipe.SIMDWidth, SIMDWidth: pipe.SIMDWidth}
	if mask != nil {
		shape.PCBits, shape.Warps = mask.PCBits, mask.WarpContexts
	} else {
		shape.PCBits = pipesim.DefaultMask(pipe, pipesim.MaxWarps).PCBits
	}
	if mask == nil && pipe.WarpSize < 2 {
		return badInput(fmt.Errorf("elastic_pipeline %s: the warp ready mask needs warp_size >= 2", pipe.Name))
	}

	var wl *pipesim.Workload
	info := pipesim.WorkloadInfo{}
	if isSynth {
		maxWarps := pipesim.MaxWarps
		if shape.Warps > 0 {
			maxWarps = shape.Warps
		}
		g := pipesim.DefaultSynthetic
		if f.preset != "" {
			g = pre.Synthetic(pipe.WarpSize, maxWarps, f.seed)
		}
		override := func(name string, apply func()) {
			if fs.Changed(name) || f.preset == "" {
				apply()
			}
		}
		override("warps", func() { g.Warps = f.warps })
		override("instructions", func() { g.Instructions = f.instrs })
		override("shmem", func() { g.Shmem = f.shmem })
		override("mem", func() { g.Mem = f.mem })
		override("degrees", func() { g.Degrees = dist })
		override("static", func() { g.Static = f.static })
		override("irregular", func() { g.Irregular = f.irregular })
		g.Seed = f.seed
		if err := g.Check(shape); err != nil {
			return usagef("%v", err)
		}
		if err := checkPipesimWork(f.workBudget, g.StudyWork(shape, pipe), "--instructions or --warps"); err != nil {
			return err
		}
		if wl, err = g.Generate(shape); err != nil {
			return err
		}
		info.Source, info.Synthetic = "synthetic", &g
		if f.writeTrace != "" {
			var b bytes.Buffer
			hdr := []string{fmt.Sprintf("lsugen pipesim synthetic workload for %s (warp_size %d, simd_width %d)", pipe.Name, pipe.WarpSize, pipe.SIMDWidth)}
			if g.Preset != "" {
				hdr = append(hdr, "preset "+g.Preset)
			}
			hdr = append(hdr, fmt.Sprintf("--warps %d --instructions %d --shmem %v --mem %v --degrees %s --static %d --irregular=%v --seed %d",
				g.Warps, g.Instructions, g.Shmem, g.Mem, g.Degrees, g.Static, g.Irregular, g.Seed))
			if err := wl.WriteTrace(&b, hdr); err != nil {
				return err
			}
			if err := writeFileAtomic(f.writeTrace, b.Bytes()); err != nil {
				return err
			}
		}
	} else if f.accelSim != "" {
		var accel *pipesim.AccelSimInfo
		if wl, accel, err = accelSimWorkload(a, f, shape); err != nil {
			return err
		}
		info.Source, info.Trace, info.AccelSim = "accelsim", f.accelSim, accel
		if f.writeTrace != "" {
			var b bytes.Buffer
			hdr := []string{fmt.Sprintf("lsugen pipesim workload of Accel-Sim trace %s for %s (warp_size %d, simd_width %d)", f.accelSim, pipe.Name, pipe.WarpSize, pipe.SIMDWidth),
				fmt.Sprintf("banks %s (%d banks) of %d bytes; pc = byte PC / %d mod 2^%d; traced warp g on warp g mod %d",
					accel.Banks, accel.NumBanks, accel.BankBytes, pipesim.SASSInstrBytes, shapePCBits(shape), max(accel.Contexts, 1))}
			if err := wl.WriteTrace(&b, hdr); err != nil {
				return err
			}
			if err := writeFileAtomic(f.writeTrace, b.Bytes()); err != nil {
				return err
			}
		}
	} else {
		if wl, err = pipesim.ParseFile(f.tracePath, shape); err != nil {
			return badInput(err)
		}
		info.Source, info.Trace = "trace", f.tracePath
	}

	wk := pipesim.StudyWork(wl, pipe)
	if !isSynth {
		if err := checkPipesimWork(f.workBudget, wk, "a shorter trace"); err != nil {
			return err
		}
	}
	est := workEstimate{cpu: wk.CPU, longest: wk.Longest}
	prog := startProgress(a.context(), a.stderr, f.quiet, "lsugen pipesim", "warp instructions", wk.WarpInstructions, est.wall())
	rep, err := pipesim.Study(a.context(), wl, pipe, mask, pipesim.Options{MaxCycles: f.maxCycles, Progress: prog.Add})
	prog.Stop()
	if err != nil {
		return err
	}
	rep.Spec = spec
	rep.Workload.Source, rep.Workload.Trace, rep.Workload.Synthetic = info.Source, info.Trace, info.Synthetic
	rep.Workload.AccelSim = info.AccelSim

	var b bytes.Buffer
	if f.asJSON {
		j, err := marshalJSON(pipesimDoc{Version: gen.Version, Report: rep})
		if err != nil {
			return err
		}
		b.Write(j)
	} else if err := rep.WriteTable(&b); err != nil {
		return err
	}
	if f.out != "" {
		return writeFileAtomic(f.out, b.Bytes())
	}
	_, err = a.stdout.Write(b.Bytes())
	return err
}

// checkPipesimWork refuses a study estimated over --work-budget.
func checkPipesimWork(limit time.Duration, wk pipesim.Work, shrink string) error {
	return checkWork(limit, workEstimate{
		size: fmt.Sprintf("%s simulated cycles in %d runs of %s warp instructions", formatCount(wk.Cycles), wk.Runs, formatCount(wk.WarpInstructions/int64(max(wk.Runs, 1)))),
		cpu:  wk.CPU, longest: wk.Longest, shrink: shrink,
	})
}

// shapePCBits is the PC width a trace is checked against.
func shapePCBits(s pipesim.Shape) int {
	if s.PCBits == 0 {
		return 32
	}
	return s.PCBits
}

// accelSimWorkload builds the workload of --accelsim, its bank mapping
// taken as conflicts takes it (--banks, --hash, hashMapping).
func accelSimWorkload(a *app, f *pipesimFlags, shape pipesim.Shape) (*pipesim.Workload, *pipesim.AccelSimInfo, error) {
	if !accelsim.IsTracePath(f.accelSim) {
		return nil, nil, usagef("--accelsim %s: want a kernelslist.g (*.g), a kernel-N.traceg or a .traceg.xz", f.accelSim)
	}
	var opt pipesim.AccelSimOptions
	var err error
	if f.hash != "" {
		if opt.Banks, err = hashMapping("--hash", f.hash, a.stderr); err != nil {
			return nil, nil, err
		}
	} else if opt.Banks, err = conflicts.Modulo(f.banks); err != nil {
		return nil, nil, usagef("--banks: %v", err)
	}
	opt.BankBytes = f.bankBytes
	if shape.Subwarps*shape.SIMDWidth != accelsim.WarpSize {
		return nil, nil, badInput(fmt.Errorf("--accelsim: Accel-Sim traces have warps of %d lanes; the elastic_pipeline's warp_size is %d", accelsim.WarpSize, shape.Subwarps*shape.SIMDWidth))
	}
	r, err := accelsim.Open(f.accelSim)
	if err != nil {
		return nil, nil, badInput(err)
	}
	defer r.Close()
	wl, info, err := pipesim.FromAccelSim(r, f.accelSim, shape, opt)
	if err != nil {
		return nil, nil, badInput(err)
	}
	return wl, info, nil
}

// loadPipeline loads one spec file and returns its elastic_pipeline unit
// (named, or the first) and its warp_ready_mask (named, or the first, or
// nil when it has none).
func loadPipeline(path, unitName, maskName string, stderr io.Writer) (*specs.ElasticPipeline, *specs.WarpReadyMask, error) {
	loader := specs.NewLoader()
	file, diags := loader.Load(path)
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return nil, nil, errBadInput
	}
	var pipe *specs.ElasticPipeline
	var mask *specs.WarpReadyMask
	for _, u := range file.Units {
		if p, ok := u.(*specs.ElasticPipeline); ok && pipe == nil && (unitName == "" || p.Name == unitName) {
			pipe = p
		}
		if m, ok := u.(*specs.WarpReadyMask); ok && mask == nil && (maskName == "" || m.Name == maskName) {
			mask = m
		}
	}
	kindOf := func(name string) string {
		for _, u := range file.Units {
			if u.UnitName() == name {
				return u.UnitKind()
			}
		}
		return ""
	}
	switch {
	case pipe == nil && unitName == "":
		return nil, nil, badInput(fmt.Errorf("%s declares no elastic_pipeline unit", path))
	case pipe == nil && kindOf(unitName) != "":
		return nil, nil, usagef("--unit %s: %s is a %s unit, not an elastic_pipeline", unitName, unitName, kindOf(unitName))
	case pipe == nil:
		return nil, nil, usagef("--unit %s: %s declares no unit %q", unitName, path, unitName)
	case mask == nil && maskName != "" && kindOf(maskName) != "":
		return nil, nil, usagef("--mask %s: %s is a %s unit, not a warp_ready_mask", maskName, maskName, kindOf(maskName))
	case mask == nil && maskName != "":
		return nil, nil, usagef("--mask %s: %s declares no unit %q", maskName, path, maskName)
	}
	if mask != nil && (mask.WarpSize != pipe.WarpSize || mask.SIMDWidth != pipe.SIMDWidth || mask.ShmemPorts != pipe.ShmemPorts) {
		return nil, nil, usagef("warp_ready_mask %s (warp_size %d, simd_width %d, shmem_ports %d) does not match elastic_pipeline %s (%d, %d, %d)",
			mask.Name, mask.WarpSize, mask.SIMDWidth, mask.ShmemPorts, pipe.Name, pipe.WarpSize, pipe.SIMDWidth, pipe.ShmemPorts)
	}
	return pipe, mask, nil
}
