package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/toolchain"
)

// genTiming is lsugen's side of the generation comparison, one pass as
// `lsugen gen` and `lsugen timing` do it in one process: load the spec
// file, generate the unit, render both Verilog modules in memory (unless
// render is false) and run the static timing. It returns the critical
// path's depth in gates.
func genTiming(ref unitRef, render bool) (depth int, err error) {
	u, err := generateUnit(ref, nil)
	if err != nil {
		return 0, err
	}
	if render {
		if _, err := rtl.Files(u.Design, rtl.Info{Version: "lsugen " + gen.Version, Source: ref.path}); err != nil {
			return 0, err
		}
	}
	r, err := timing.Analyze(u.Design, timing.DefaultOptions())
	if err != nil {
		return 0, err
	}
	return r.Depth, nil
}

// yosysScript is the synthesis Yosys is timed on: the readable RTL through
// the generic synth script, then the longest topological path.
func yosysScript(file, top string) string {
	return fmt.Sprintf("read_verilog %s; synth -top %s; ltp", file, top)
}

var ltpRE = regexp.MustCompile(`Longest topological path in (\S+) \(length=(\d+)\)`)

// parseLTP finds ltp's path length for module top in Yosys's log.
func parseLTP(log []byte, top string) (int, error) {
	for _, m := range ltpRE.FindAllSubmatch(log, -1) {
		if string(m[1]) == top {
			return strconv.Atoi(string(m[2]))
		}
	}
	return 0, fmt.Errorf("yosys: no `Longest topological path in %s` line in its log", top)
}

// yosysResult is one unit's Yosys run.
type yosysResult struct {
	cpu    time.Duration // CPU time of the fastest run, ABC's included
	wall   time.Duration // wall time of that run, process start to exit
	runs   int
	length int // ltp's longest path, in cells
}

// runYosys times `yosys -p SCRIPT` on the RTL file in dir: trials runs,
// or fewer once the runs so far took budget; the one with the least CPU
// time counts. Its CPU time is user + system of Yosys and of the ABC
// processes it runs and waits for (Linux adds those to the child's
// resource usage).
func runYosys(ctx context.Context, dir, file, top string, trials int, budget time.Duration) (*yosysResult, error) {
	yosys, err := toolchain.Find("yosys")
	if err != nil {
		return nil, err
	}
	r := &yosysResult{}
	var spent time.Duration
	for r.runs < max(1, trials) && (r.runs == 0 || spent < budget) {
		res, err := yosys.Command(dir, "-p", yosysScript(filepath.Base(file), top)).Run(ctx)
		if err != nil {
			return nil, fmt.Errorf("yosys on %s: %w", file, err)
		}
		n, err := parseLTP(res.Output, top)
		if err != nil {
			return nil, err
		}
		r.length = n
		r.runs++
		spent += res.Wall
		if r.cpu == 0 || res.CPU < r.cpu {
			r.cpu, r.wall = res.CPU, res.Wall
		}
	}
	return r, nil
}
