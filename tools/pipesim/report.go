package pipesim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/lsugen/lsugen/specs"
)

// Variants are the pipeline variants a study runs, in report order.
var Variants = []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic}

// Report is a study: every variant without and with the ready mask.
type Report struct {
	Spec      string       `json:"spec"`
	Pipeline  PipelineInfo `json:"pipeline"`
	ReadyMask MaskInfo     `json:"ready_mask"`
	Workload  WorkloadInfo `json:"workload"`
	Runs      []Run        `json:"runs"`
}

// PipelineInfo is the configuration every run shares.
type PipelineInfo struct {
	Unit       string `json:"unit"`
	MemStages  int    `json:"mem_stages"`
	WarpSize   int    `json:"warp_size"`
	SIMDWidth  int    `json:"simd_width"`
	ShmemPorts int    `json:"shmem_ports"`
	Subwarps   int    `json:"subwarps"`
	PremDepth  int    `json:"premem_depth"` // N of the elastic variant
}

// MaskInfo is the ready mask of the runs with the mask.
type MaskInfo struct {
	Unit         string `json:"unit"` // "" for the paper's default
	WarpContexts int    `json:"warp_contexts"`
	HistorySets  int    `json:"history_sets"`
	HistoryWays  int    `json:"history_ways"`
	PCBits       int    `json:"pc_bits"`
}

// WorkloadInfo says where the workload came from and what it holds.
type WorkloadInfo struct {
	Source    string        `json:"source"` // "trace", "accelsim" or "synthetic"
	Trace     string        `json:"trace"`  // the trace file, "" for synthetic
	Synthetic *Synthetic    `json:"synthetic"`
	AccelSim  *AccelSimInfo `json:"accelsim"` // how an Accel-Sim trace was converted; nil for the others
	Stats
}

// Study runs wl on every variant of p, without and with the ready mask
// (DefaultMask when mask is nil). The runs are independent and run in
// parallel; the report is the same whatever their order. Study returns
// soon after ctx is cancelled, with its error.
func Study(ctx context.Context, wl *Workload, p *specs.ElasticPipeline, mask *specs.WarpReadyMask, opt Options) (*Report, error) {
	rep := &Report{Pipeline: PipelineInfo{
		Unit: p.Name, MemStages: p.MemStages, WarpSize: p.WarpSize, SIMDWidth: p.SIMDWidth,
		ShmemPorts: p.ShmemPorts, Subwarps: p.WarpSize / max(p.SIMDWidth, 1), PremDepth: p.WarpSize/max(p.SIMDWidth, 1) - 1,
	}}
	if mask == nil {
		mask = DefaultMask(p, len(wl.Programs))
		rep.ReadyMask.Unit = ""
	} else {
		rep.ReadyMask.Unit = mask.Name
	}
	rep.ReadyMask.WarpContexts, rep.ReadyMask.HistorySets = mask.WarpContexts, mask.HistorySets
	rep.ReadyMask.HistoryWays, rep.ReadyMask.PCBits = mask.HistoryWays, mask.PCBits
	rep.Workload.Stats = wl.Stats()

	rep.Runs = make([]Run, 2*len(Variants))
	errs := make([]error, len(rep.Runs))
	var wg sync.WaitGroup
	for i, v := range Variants {
		for j, m := range []*specs.WarpReadyMask{nil, mask} {
			q := *p
			q.PipeVariant = v
			k := 2*i + j
			wg.Go(func() { rep.Runs[k], errs[k] = Simulate(ctx, wl, q, m, opt) })
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pipesim: stopped: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	base := rep.Runs[0].Cycles
	for i := range rep.Runs {
		if c := rep.Runs[i].Cycles; c > 0 {
			rep.Runs[i].Speedup = float64(base) / float64(c)
		}
	}
	return rep, nil
}

// JSON is the report as indented JSON with a final newline.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteTable prints the configuration, the workload and one row per run.
func (r *Report) WriteTable(w io.Writer) error {
	p := r.Pipeline
	var b strings.Builder
	fmt.Fprintf(&b, "elastic_pipeline %s", p.Unit)
	if r.Spec != "" {
		fmt.Fprintf(&b, " (%s)", r.Spec)
	}
	fmt.Fprintf(&b, ": M = %d memory stages, warp %d, SIMD %d, %d shared-memory port%s: %d subwarp%s per warp, PREMEM depth %d (elastic)\n",
		p.MemStages, p.WarpSize, p.SIMDWidth, p.ShmemPorts, plural(p.ShmemPorts), p.Subwarps, plural(p.Subwarps), p.PremDepth)
	m := r.ReadyMask
	name := "warp_ready_mask " + m.Unit
	if m.Unit == "" {
		name = "ready mask (the paper's default)"
	}
	fmt.Fprintf(&b, "%s: %d sets x %d ways, %d-bit PCs, %d warp contexts\n", name, m.HistorySets, m.HistoryWays, m.PCBits, m.WarpContexts)
	wl := r.Workload
	switch {
	case wl.Synthetic != nil && wl.Synthetic.Preset != "":
		fmt.Fprintf(&b, "workload: preset %s (synthetic, seed %d", wl.Synthetic.Preset, wl.Synthetic.Seed)
	case wl.Synthetic != nil:
		fmt.Fprintf(&b, "workload: synthetic (seed %d, degrees %s", wl.Synthetic.Seed, wl.Synthetic.Degrees)
	case wl.AccelSim != nil:
		fmt.Fprintf(&b, "workload: Accel-Sim trace %s (", wl.Trace)
	default:
		fmt.Fprintf(&b, "workload: trace %s (", wl.Trace)
	}
	if wl.Synthetic != nil {
		if wl.Synthetic.Irregular {
			b.WriteString(", irregular")
		} else {
			b.WriteString(", regular")
		}
		fmt.Fprintf(&b, ", %d static instructions", wl.Synthetic.Static)
	} else {
		fmt.Fprintf(&b, "%d PCs", wl.StaticPCs)
	}
	fmt.Fprintf(&b, "): %d warps, %d warp instructions (%d subwarps); shmem %.1f%%, mem %.1f%%, mean conflict degree %.2f\n",
		wl.Warps, wl.WarpInstructions, wl.SubwarpInstructions, 100*wl.ShmemIntensity, 100*wl.MemIntensity, wl.MeanDegree)
	if a := wl.AccelSim; a != nil {
		fmt.Fprintf(&b, "Accel-Sim: %d traced warps on %d warp contexts; banks %s (%d banks) of %d bytes; PC = byte PC / %d mod 2^%d (%d wrapped); %d subwarp degrees clamped to simd_width, %d subwarps without an active lane at 1\n",
			a.TracedWarps, a.Contexts, a.Banks, a.NumBanks, a.BankBytes, a.InstrBytes, m.PCBits, a.PCWrapped, a.DegreeClamped, a.InactiveSubwarps)
	}
	b.WriteString("\n")

	rows := [][]string{{"variant", "mask", "cycles", "IPC", "subwarp IPC", "bank stalls", "wb stalls", "fails masked", "fails none", "wb bubbles", "speedup"}}
	for _, run := range r.Runs {
		onOff := "off"
		if run.Mask {
			onOff = "on"
		}
		rows = append(rows, []string{run.Variant, onOff, fmt.Sprint(run.Cycles),
			fmt.Sprintf("%.3f", run.IPC), fmt.Sprintf("%.3f", run.SubwarpIPC),
			fmt.Sprint(run.Stalls.BankConflict), fmt.Sprint(run.Stalls.WritebackConflict),
			fmt.Sprint(run.SchedFails.Masked), fmt.Sprint(run.SchedFails.NoneReady),
			fmt.Sprint(run.WBBubbles), fmt.Sprintf("%.3f", run.Speedup)})
	}
	writeColumns(&b, rows, 2)
	b.WriteString("\nstalls: cycles a subwarp was refused; fails: front end free, no warp ready (masked: only because\n" +
		"of the mask); IPC: warp instructions per cycle; speedup: over baseline_unified without the mask.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeColumns prints rows in columns two spaces apart: the first left
// columns left-aligned, the others right-aligned.
func writeColumns(b *strings.Builder, rows [][]string, left int) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len(c))
			if i < left {
				b.WriteString(c)
				if i < len(r)-1 {
					b.WriteString(pad)
				}
			} else {
				b.WriteString(pad + c)
			}
		}
		b.WriteByte('\n')
	}
}
