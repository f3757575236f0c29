package profile

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the coalescers' cycles, then per kernel one line per
// PC and a kernel line, then the total. Each clock adds three columns:
// the mean cycles per access of the all-to-all and the speculative
// coalescer, and the speedup.
func (r *Report) WriteTable(w io.Writer) error {
	t := r.Timing
	clocks := make([]string, len(t.ClocksFO4))
	for i, c := range t.ClocksFO4 {
		clocks[i] = fmt.Sprintf("%g", c)
	}
	at := strings.Join(clocks, " / ") + " FO4"
	if t.FO4PS > 0 {
		ps := make([]string, len(t.ClocksPS))
		for i, c := range t.ClocksPS {
			ps[i] = fmt.Sprintf("%.0f", c)
		}
		at += fmt.Sprintf(" (%s ps in %s, FO4 = %.2f ps)", strings.Join(ps, " / "), t.Tech, t.FO4PS)
	}
	fmt.Fprintf(w, "Coalescers of %s at a clock of %s (%s timing, speculative paths %s); blocks of %d bytes:\n",
		t.Spec, at, t.Mode, t.SpecTiming, r.BlockBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	unit := func(structure string, u UnitTiming, what string) {
		cyc := make([]string, len(u.Cycles))
		for i, c := range u.Cycles {
			cyc[i] = fmt.Sprint(c)
		}
		word := "cycles"
		if len(u.Cycles) == 1 && u.Cycles[0] == 1 {
			word = "cycle"
		}
		delay := fmt.Sprintf("%7.2f FO4", u.FO4)
		if t.FO4PS > 0 {
			delay += fmt.Sprintf("\t%8.1f ps", u.DelayPS)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s %s\t%s\n", structure, u.Unit, delay, strings.Join(cyc, " / "), word, what)
	}
	unit("all-to-all", t.AllToAll, "every access")
	unit("neighbor", t.Neighbor, "exact only where each block's active lanes are contiguous")
	unit("speculative", t.SpeculativeFast, "fast path: monotonic accesses")
	unit("", t.SpeculativeSlow, "slow path: the others")
	if err := tw.Flush(); err != nil {
		return err
	}
	if t.Clocked {
		fmt.Fprintln(w, "  cycles: each unit's latency as lsugen generates it at the clock (clock_fo4; the speculative unit's fast and slow answers); FO4: its combinational delay")
	} else {
		fmt.Fprintln(w, "  cycles: ⌈FO4 / clock⌉ of each combinational unit (003_*'s method)")
	}
	if len(t.SpeculativeParts) > 0 {
		parts := make([]string, len(t.SpeculativeParts))
		for i, p := range t.SpeculativeParts {
			parts[i] = fmt.Sprintf("%s %.2f FO4", strings.ReplaceAll(p.Name, "_", "-"), p.FO4)
			if t.FO4PS > 0 {
				parts[i] += fmt.Sprintf(" (%.1f ps)", p.DelayPS)
			}
		}
		fmt.Fprintf(w, "  inside %s, at its output multiplexers: %s\n", t.SpeculativeFast.Unit, strings.Join(parts, ", "))
	}
	head := "\taccesses\tlanes\tmonotonic\tincr\tdecr\tunif\tnbr exact\tblocks"
	for _, c := range clocks {
		head += fmt.Sprintf("\ta2a@%s\tspec@%s\tx@%s", c, c, c)
	}
	head += "\t\tunique blocks (blocks:accesses)"
	for _, k := range r.Kernels {
		fmt.Fprintf(w, "\nkernel %d %s (%s)\n", k.ID, k.Name, k.Trace)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		ow := len("opcode")
		for _, p := range k.PCs {
			ow = max(ow, len(p.Opcode))
		}
		label := func(pc, opcode string) string { return fmt.Sprintf("%-8s%-*s", pc, ow, opcode) }
		fmt.Fprintln(tw, label("pc", "opcode")+head)
		for _, p := range k.PCs {
			statsRow(tw, label(p.PC, p.Opcode), &p.Stats)
		}
		statsRow(tw, label("kernel", ""), &k.Stats)
		if err := tw.Flush(); err != nil {
			return err
		}
		if s := k.Skipped; s != (Skipped{}) {
			fmt.Fprintf(w, "  not profiled: %s\n", skippedText(s))
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	label := fmt.Sprintf("total, %d kernels", len(r.Kernels))
	fmt.Fprintln(tw, strings.Repeat(" ", len(label))+head)
	statsRow(tw, label, &r.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	if s := r.Skipped; s != (Skipped{}) {
		fmt.Fprintf(w, "  not profiled: %s\n", skippedText(s))
	}
	return nil
}

// statsRow prints one row; the histogram goes last, after an empty cell,
// outside the aligned columns.
func statsRow(tw io.Writer, label string, s *Stats) {
	lanes, mono, nbr := 0.0, 0.0, 0.0
	if s.Accesses > 0 {
		n := float64(s.Accesses)
		lanes, mono, nbr = float64(s.ActiveLanes)/n, 100*float64(s.Monotonic)/n, 100*float64(s.NeighborExact)/n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%d\t%.1f\t%.1f%%\t%d\t%d\t%d\t%.1f%%\t%.2f", label, s.Accesses, lanes, mono, s.Increasing, s.Decreasing, s.Uniform, nbr, s.MeanUniqueBlocks)
	for _, c := range s.Cycles {
		fmt.Fprintf(&b, "\t%.2f\t%.2f\t%.2fx", c.MeanAllToAll, c.MeanSpeculative, c.Speedup)
	}
	hist := make([]string, len(s.UniqueBlocks))
	for i, h := range s.UniqueBlocks {
		hist[i] = fmt.Sprintf("%d:%d", h.Blocks, h.Accesses)
	}
	fmt.Fprintf(tw, "%s\t\t%s\n", b.String(), strings.Join(hist, " "))
}

func skippedText(s Skipped) string {
	t := fmt.Sprintf("%d global atomics (ATOMG, RED), %d generic LD/ST to global, %d in other spaces (shared, local, ...)",
		s.GlobalAtomics, s.OtherGlobal, s.OtherSpaces)
	if s.NoActiveLanes > 0 {
		t += fmt.Sprintf(", %d LDG/STG with no active lane", s.NoActiveLanes)
	}
	return t
}
