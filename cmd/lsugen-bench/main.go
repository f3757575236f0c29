// Command lsugen-bench measures lsugen side by side with the tools a user
// would otherwise run, on one machine in one go (`make bench`):
//
//   - lsugen's bit-parallel netlist simulator against Verilator on the same
//     gate-level Verilog (the NAME_gates module lsugen writes) and the same
//     vectors, in vectors per second on one thread, with a checksum of all
//     outputs that must agree between the two and with the behavioural
//     model, so that both did the same work;
//   - lsugen gen + timing in one process against `yosys -p 'read_verilog
//     NAME.v; synth -top NAME; ltp'` on the unit's readable RTL;
//   - the exhaustive hash configuration search's throughput;
//   - `lsugen replay` of the same warp instructions through a shared
//     memory on the netlist simulator and on Verilator, each in lockstep
//     with the model, and on the model alone, in warp instructions per
//     second.
//
// It prints the figures, the ratios against the goals (the simulator at
// least as fast as Verilator, gen + timing at least 50 times faster than
// Yosys, the replay's goals) and the machine. Verilator's build is timed apart and cached by a
// hash of everything that goes into it, so a second run does not rebuild.
//
// Usage, from the repository root:
//
//	lsugen-bench [-parts sim,gen,search,replay] [-sim UNITS] [-gen UNITS]
//	             [-replay FILE.hcl:NAME] [-replay-instrs N]
//	             [-replay-verilator-instrs N] [-replay-model-instrs N]
//	             [-min-time 1s] [-trials 3] [-cache DIR|off]
//
// UNITS is a comma-separated list of FILE.hcl:NAME.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
)

const (
	defaultSimUnits = "specs/coalescer_thesis.hcl:coalesce_a2a_64,specs/hash_configurable.hcl:cfg_bitwise_xor"
	defaultGenUnits = "specs/coalescer_thesis.hcl:coalesce_a2a_64,specs/coalescer_thesis.hcl:coalesce_a2a_32," +
		"specs/hash_configurable.hcl:cfg_bitwise_xor"

	// The goals of issue 6.
	simGoal = 1.0  // lsugen sim vectors/s over Verilator's
	genGoal = 50.0 // Yosys time over lsugen gen + timing time
)

func main() {
	// SIGINT, SIGTERM and SIGHUP cancel the run: the tools are killed with
	// their process groups and the temporary directories removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the parsed command line.
type config struct {
	sim, gen, search, replay bool
	simUnits                 []unitRef
	genUnits                 []unitRef
	minTime                  time.Duration
	trials                   int
	cacheDir                 string // "" for no cache
	accesses                 int    // accesses of each search workload
	replayUnit               unitRef
	// warp instructions of the replay on the netlist simulator, on
	// Verilator and on the model alone
	replayInstrs, replayVerilatorInstrs, replayModelInstrs int
}

var errUsage = errors.New("usage")

func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("lsugen-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parts := fs.String("parts", "sim,gen,search,replay", "comma-separated parts to run: sim, gen, search, replay")
	simUnits := fs.String("sim", defaultSimUnits, "units (FILE.hcl:NAME, comma-separated) for lsugen sim against Verilator")
	genUnits := fs.String("gen", defaultGenUnits, "units for lsugen gen + timing against Yosys synth + ltp")
	minTime := fs.Duration("min-time", time.Second, "minimum time of one timed trial")
	trials := fs.Int("trials", 3, "timed trials per figure; the fastest counts")
	cache := fs.String("cache", "", "directory for built Verilator models (\"off\": none; default $"+toolchain.CacheDirEnv+"/bench or the user cache)")
	accesses := fs.Int("accesses", 1_000_000, "warp accesses of each search workload (tiled kernel, random addresses)")
	replayUnit := fs.String("replay", defaultReplayUnit, "shared_memory unit (FILE.hcl:NAME) for lsugen replay")
	replayInstrs := fs.Int("replay-instrs", 100_000, "warp instructions of the replay on the netlist simulator")
	replayVL := fs.Int("replay-verilator-instrs", 2_000, "warp instructions of the replay on Verilator (a prefix of the same trace)")
	replayModel := fs.Int("replay-model-instrs", 1_000_000, "warp instructions of the replay on the model alone")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: lsugen-bench [flags]   (run from the repository root)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lsugen-bench: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	c := &config{minTime: *minTime, trials: *trials, accesses: *accesses,
		replayInstrs: *replayInstrs, replayVerilatorInstrs: *replayVL, replayModelInstrs: *replayModel}
	for _, p := range strings.Split(*parts, ",") {
		switch strings.TrimSpace(p) {
		case "sim":
			c.sim = true
		case "gen":
			c.gen = true
		case "search":
			c.search = true
		case "replay":
			c.replay = true
		case "":
		default:
			fmt.Fprintf(stderr, "lsugen-bench: -parts: unknown part %q (sim, gen, search, replay)\n", p)
			return nil, errUsage
		}
	}
	if c.minTime <= 0 || c.trials < 1 || c.accesses < 1 || c.replayInstrs < 1 || c.replayVerilatorInstrs < 1 || c.replayModelInstrs < 1 {
		fmt.Fprintln(stderr, "lsugen-bench: -min-time, -trials, -accesses and the -replay-*instrs must be positive")
		return nil, errUsage
	}
	var err error
	if c.simUnits, err = parseUnitRefs(*simUnits); err != nil {
		fmt.Fprintf(stderr, "lsugen-bench: -sim: %v\n", err)
		return nil, errUsage
	}
	if c.genUnits, err = parseUnitRefs(*genUnits); err != nil {
		fmt.Fprintf(stderr, "lsugen-bench: -gen: %v\n", err)
		return nil, errUsage
	}
	refs, err := parseUnitRefs(*replayUnit)
	if err != nil || len(refs) != 1 {
		fmt.Fprintf(stderr, "lsugen-bench: -replay: want one FILE.hcl:NAME, got %q\n", *replayUnit)
		return nil, errUsage
	}
	c.replayUnit = refs[0]
	c.cacheDir = benchCacheDir(*cache)
	return c, nil
}

// benchCacheDir is where built models are kept: the flag, else lsugen's
// cache root (toolchain.CacheRoot) with "bench" under it; "" when the
// cache is off.
func benchCacheDir(flagValue string) string {
	switch flagValue {
	case "off":
		return ""
	case "":
	default:
		return flagValue
	}
	root := toolchain.CacheRoot()
	if root == "" {
		return ""
	}
	return filepath.Join(root, "bench")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return 2
	}
	tmp, err := os.MkdirTemp("", "lsugen-bench-")
	if err != nil {
		fmt.Fprintf(stderr, "lsugen-bench: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintln(stdout, "lsugen-bench: lsugen beside Verilator and Yosys, on one machine")
	fmt.Fprintf(stdout, "machine: %s\n", machine())
	fmt.Fprintf(stdout, "tools:   %s\n\n", toolVersions(c))
	steps := []struct {
		on  bool
		run func(context.Context, *config, string, io.Writer, io.Writer) error
	}{{c.sim, benchSim}, {c.gen, benchGen}, {c.search, benchSearch}, {c.replay, benchReplay}}
	for _, s := range steps {
		if !s.on {
			continue
		}
		if err := s.run(ctx, c, tmp, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "lsugen-bench: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout)
	}
	return 0
}

// toolVersions lists the external tools the parts use; a missing one is
// reported when its part runs.
func toolVersions(c *config) string {
	var names []string
	if c.sim || c.replay {
		names = append(names, "verilator", "g++", "make")
	}
	if c.gen {
		names = append(names, "yosys")
	}
	var parts []string
	for _, n := range names {
		if t, err := toolchain.Find(n); err == nil {
			v := n + " " + t.Version
			if n == "g++" {
				v += " (model C++ at " + cxxOpt + ")"
			}
			parts = append(parts, v)
		} else {
			parts = append(parts, n+" missing")
		}
	}
	if len(parts) == 0 {
		return "none needed"
	}
	return strings.Join(parts, ", ")
}

// benchSim compares lsugen's simulator with Verilator on each unit.
func benchSim(ctx context.Context, c *config, tmp string, stdout, stderr io.Writer) error {
	type row struct {
		u                *benchUnit
		set              *vectorSet
		lsugen, vl, eval float64 // vectors per CPU second
		lsugenW, vlW     float64 // vectors per wall second
		sum              uint64
		build            *verilatorBuild
	}
	var rows []row
	for _, ref := range c.simUnits {
		u, err := loadUnit(ref, stderr)
		if err != nil {
			return err
		}
		if u.design.Clock != "" {
			return fmt.Errorf("%s: a clocked unit; the simulator comparison takes combinational units", ref)
		}
		set := unitVectors(u)
		want, err := modelChecksum(u, set)
		if err != nil {
			return err
		}

		sr := newSimRunner(u.design, set)
		var sum uint64
		t := measure(c.minTime, c.trials, true, func() { sum = sr.pass() })
		if sum != want {
			return fmt.Errorf("%s: lsugen's simulator checksum %016x, the model's %016x", ref, sum, want)
		}
		// The simulator's Eval alone, as many batches of 64 as a pass.
		te := measure(c.minTime, c.trials, true, func() {
			for range (set.n + 63) / 64 {
				sr.sim.Eval()
			}
		})

		files, err := rtl.Files(u.design, rtl.Info{Version: "lsugen " + gen.Version, Source: ref.path})
		if err != nil {
			return err
		}
		gates := files[u.design.Name+"_gates.v"]
		if gates == nil {
			return fmt.Errorf("%s: rtl.Files wrote no %s_gates.v", ref, u.design.Name)
		}
		fmt.Fprintf(stderr, "lsugen-bench: Verilator model of %s_gates (%d gates): ", u.design.Name, len(u.design.Gates))
		start := time.Now()
		b, err := buildVerilator(ctx, u.design, gates, c.cacheDir, tmp)
		if err != nil {
			fmt.Fprintln(stderr, "failed")
			return err
		}
		if b.Cached {
			fmt.Fprintln(stderr, "cached")
		} else {
			fmt.Fprintf(stderr, "built in %s\n", dur(time.Since(start)))
		}
		vecFile := filepath.Join(tmp, u.design.Name+".vec")
		if err := writeVectorFile(vecFile, set); err != nil {
			return err
		}
		hr, err := runHarness(ctx, b.Exe, vecFile, c.minTime, c.trials)
		if err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		if hr.vectors != set.n {
			return fmt.Errorf("%s: the Verilator harness read %d vectors of %d", ref, hr.vectors, set.n)
		}
		if hr.checksum != want {
			return fmt.Errorf("%s: Verilator's checksum %016x, the model's and lsugen's %016x: not the same work", ref, hr.checksum, want)
		}
		n := float64(set.n)
		rows = append(rows, row{u: u, set: set, sum: sum, build: b,
			lsugen: n / t.cpu.Seconds(), vl: n / hr.bestPass.Seconds(), eval: n / te.cpu.Seconds(),
			lsugenW: n / t.wall.Seconds(), vlW: n / hr.bestWall.Seconds()})
	}

	fmt.Fprintf(stdout, "Netlist simulation: lsugen's bit-parallel simulator and Verilator on the same gate-level Verilog\n"+
		"and vectors, one thread; vectors per second of CPU time, best of %d trials of at least %s each.\n"+
		"lsugen sim counts moving the vectors into bit lanes and back; Eval alone is the bit-parallel core.\n", c.trials, c.minTime)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "unit\tgates\tvectors\tlsugen sim\t(Eval alone)\tVerilator\tlsugen/Verilator\tchecksum (model = both)\tVerilator build (verilate + C++)")
	met := 0
	for _, r := range rows {
		ratio := r.lsugen / r.vl
		if ratio >= simGoal {
			met++
		}
		build := dur(r.build.Verilate) + " + " + dur(r.build.Compile)
		if r.build.Cached {
			build += " (cached)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s/s\t(%s/s)\t%s/s\t%s\t%016x\t%s\n", r.u.design.Name, len(r.u.design.Gates), r.set.n,
			rate(r.lsugen), rate(r.eval), rate(r.vl), times(ratio), r.sum, build)
	}
	tw.Flush()
	for _, r := range rows {
		fmt.Fprintf(stdout, "%s: vectors %s; wall clock: lsugen sim %s/s, Verilator %s/s\n",
			r.u.design.Name, r.set.coverage, rate(r.lsugenW), rate(r.vlW))
	}
	fmt.Fprintf(stdout, "goal: lsugen sim at least as fast as Verilator: %s on %d of %d units\n", metWord(met == len(rows)), met, len(rows))
	return nil
}

// benchGen compares lsugen gen + timing with Yosys synth + ltp.
func benchGen(ctx context.Context, c *config, tmp string, stdout, stderr io.Writer) error {
	type row struct {
		name         string
		gates        int
		lsugen, bare time.Duration // with and without rendering the Verilog
		depth        int
		yosys        *yosysResult
	}
	var rows []row
	for _, ref := range c.genUnits {
		u, err := loadUnit(ref, stderr)
		if err != nil {
			return err
		}
		var depth int
		var gerr error
		pass := func(render bool) func() {
			return func() {
				if d, err := genTiming(ref, render); err != nil {
					gerr = err
				} else {
					depth = d
				}
			}
		}
		t := measure(c.minTime, c.trials, true, pass(true))
		bare := measure(c.minTime, c.trials, true, pass(false))
		if gerr != nil {
			return gerr
		}
		files, err := rtl.Files(u.design, rtl.Info{Version: "lsugen " + gen.Version, Source: ref.path})
		if err != nil {
			return err
		}
		name := u.design.Name + ".v"
		if err := atomicfile.Write(filepath.Join(tmp, name), files[name]); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "lsugen-bench: yosys synth + ltp of %s ...\n", name)
		y, err := runYosys(ctx, tmp, name, u.design.Name, c.trials, 30*time.Second)
		if err != nil {
			return err
		}
		rows = append(rows, row{u.design.Name, len(u.design.Gates), t.cpu, bare.cpu, depth, y})
	}

	fmt.Fprintln(stdout, "Generation and timing: lsugen gen + timing in one process (load the spec, generate, render both\n"+
		"Verilog modules, static timing; one thread) against `yosys -p 'read_verilog NAME.v; synth -top NAME; ltp'`\n"+
		"on the same unit's readable RTL; CPU time (Yosys's with ABC's), the best of the trials")
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "unit\tgates\tlsugen gen+timing\t(no Verilog text)\tcritical path\tYosys synth+ltp\t(wall)\truns\tltp length\tYosys/lsugen")
	met := 0
	for _, r := range rows {
		ratio := r.yosys.cpu.Seconds() / r.lsugen.Seconds()
		if ratio >= genGoal {
			met++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t(%s)\t%d gates\t%s\t(%s)\t%d\t%d cells\t%s\n", r.name, r.gates, dur(r.lsugen), dur(r.bare),
			r.depth, dur(r.yosys.cpu), dur(r.yosys.wall), r.yosys.runs, r.yosys.length, times(ratio))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "goal: gen + timing at least %.0f× faster than Yosys synth + ltp: %s on %d of %d units\n",
		genGoal, metWord(met == len(rows)), met, len(rows))
	return nil
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// rate writes x with an SI prefix and three significant digits.
func rate(x float64) string {
	for _, p := range []struct {
		f float64
		s string
	}{{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if x >= p.f {
			return sig3(x/p.f) + p.s
		}
	}
	return sig3(x) + " "
}

func sig3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func times(r float64) string { return sig3(r) + "×" }

func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + " µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + " ms"
	case d < time.Minute:
		return sig3(d.Seconds()) + " s"
	}
	return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// count writes n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
