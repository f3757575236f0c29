package replay

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Row sums the instructions of a group, a kernel, the fill or a total.
type Row struct {
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	// Predicted: the passes lsugen conflicts predicts (its accesses plus
	// bank conflicts); 0 for the fill, which it does not see.
	Predicted int `json:"passes_predicted"`
	Measured  int `json:"passes_measured"` // rsp_passes_o of the unit
	// Cycles are the bank cycles measured from the response timing: per
	// instruction, its response cycle less the later of the previous
	// response and its acceptance + L - 1.
	Cycles    int `json:"cycles"`
	Disagreed int `json:"disagreements"`
}

func (r *Row) add(x *Instr, passes, cycles int, bad bool) {
	r.Instructions++
	r.Predicted += int(x.Predicted)
	r.Measured += passes
	r.Cycles += cycles
	if bad {
		r.Disagreed++
	}
}

// Disagreement is one instruction whose measured passes or cycles differ
// from the prediction, or that the unit refused.
type Disagreement struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Instr     string `json:"instr"`
	Predicted int    `json:"passes_predicted"`
	Measured  int    `json:"passes_measured"`
	Cycles    int    `json:"cycles"`
	Refused   bool   `json:"refused,omitempty"`
}

// InputReport is one trace file's rows.
type InputReport struct {
	File             string `json:"file"`
	Kernels          []Row  `json:"kernels"`
	Instrs           []Row  `json:"instrs"`
	SkippedNotShared int    `json:"skipped_not_shared,omitempty"`
	SkippedInactive  int    `json:"skipped_inactive,omitempty"`
	Total            Row    `json:"total"`
}

// Report is a replay's outcome.
type Report struct {
	Unit      string `json:"unit"`
	Engine    string `json:"engine"`
	Banks     string `json:"banks"` // the mapping, as lsugen conflicts names it
	NumBanks  int    `json:"num_banks"`
	BankBytes int    `json:"bank_bytes"`
	Lanes     int    `json:"lanes"`
	// ConflictsFlags give lsugen conflicts the same mapping and width.
	ConflictsFlags string         `json:"conflicts_flags"`
	Inputs         []InputReport  `json:"inputs"`
	Fill           Row            `json:"fill"`
	Total          Row            `json:"total"`
	Disagreements  []Disagreement `json:"disagreements"`
	StreamCycles   int            `json:"stream_cycles"` // the lockstep run's cycles, of all parts
	// Segments the stream was cut into (the netlist simulator runs them
	// side by side), of all parts; Refills the stores that refilled the
	// storage after each segment's reset and the fill of every part but
	// the first.
	Segments int     `json:"segments"`
	Refills  int     `json:"refill_stores"`
	Seconds  float64 `json:"seconds"` // the engine's run (of parts side by side, the longest)
}

// Agree reports whether every instruction took the predicted passes.
func (r *Report) Agree() bool { return len(r.Disagreements) == 0 }

// report sums the measurements of a finished replay.
func (w *Workload) report(s *stim) *Report {
	u := w.Unit
	rep := &Report{Unit: u.Name, Banks: w.Banks.Name, NumBanks: w.Banks.Size, BankBytes: u.BankBytes, Lanes: u.Lanes,
		ConflictsFlags: w.ConflictsFlags(), Fill: Row{Name: "fill"}, Total: Row{Name: "total"}, Disagreements: []Disagreement{}}
	for i := range w.Fill {
		rep.Fill.add(&w.Fill[i], int(s.passes[i]), int(s.cycles[i]), s.errors[i])
	}
	rows := make([]Row, len(w.Groups))
	kernels := make([]map[string]int, len(w.Inputs))
	for i := range w.Inputs {
		rep.Inputs = append(rep.Inputs, InputReport{File: w.Inputs[i].File, Kernels: []Row{}, Instrs: []Row{},
			SkippedNotShared: w.Inputs[i].SkippedNotShared, SkippedInactive: w.Inputs[i].SkippedInactive, Total: Row{Name: "total"}})
		kernels[i] = map[string]int{}
	}
	for g, gr := range w.Groups {
		rows[g].Name = gr.Name
		in := &rep.Inputs[gr.Input]
		if _, ok := kernels[gr.Input][gr.Kernel]; !ok {
			kernels[gr.Input][gr.Kernel] = len(in.Kernels)
			in.Kernels = append(in.Kernels, Row{Name: gr.Kernel})
		}
	}
	for i := range w.Instrs {
		x := &w.Instrs[i]
		k := len(w.Fill) + i
		passes, cycles := int(s.passes[k]), int(s.cycles[k])
		bad := s.errors[k] || passes != int(x.Predicted) || cycles != passes
		gr := w.Groups[x.Group]
		in := &rep.Inputs[gr.Input]
		rows[x.Group].add(x, passes, cycles, bad)
		in.Kernels[kernels[gr.Input][gr.Kernel]].add(x, passes, cycles, bad)
		in.Total.add(x, passes, cycles, bad)
		rep.Total.add(x, passes, cycles, bad)
		if bad {
			rep.Disagreements = append(rep.Disagreements, Disagreement{File: in.File, Line: int(x.Line), Instr: gr.Name,
				Predicted: int(x.Predicted), Measured: passes, Cycles: cycles, Refused: s.errors[k]})
		}
	}
	for g, gr := range w.Groups {
		in := &rep.Inputs[gr.Input]
		in.Instrs = append(in.Instrs, rows[g])
	}
	return rep
}

// Write prints the report: per input a row per kernel and per instruction
// group, the fill and the total, then every disagreement.
func (r *Report) Write(w io.Writer) error {
	fmt.Fprintf(w, "unit: %s (%d lanes), banks: %s (%d banks) of %d bytes; engine: %s, in lockstep with the model\n",
		r.Unit, r.Lanes, r.Banks, r.NumBanks, r.BankBytes, r.Engine)
	fmt.Fprintf(w, "predicted: lsugen conflicts %s (passes = accesses + bank conflicts)\n", r.ConflictsFlags)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	const cols = "\tinstructions\tpasses predicted\tpasses measured\tcycles\tdisagreements\t"
	row := func(x Row) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", x.Name, x.Instructions, x.Predicted, x.Measured, x.Cycles, x.Disagreed)
	}
	for _, in := range r.Inputs {
		fmt.Fprintf(tw, "\n%s\n", in.File)
		fmt.Fprintln(tw, "kernel"+cols)
		for _, k := range in.Kernels {
			row(k)
		}
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "instruction"+cols)
		for _, x := range in.Instrs {
			row(x)
		}
		row(in.Total)
		if in.SkippedNotShared > 0 || in.SkippedInactive > 0 {
			fmt.Fprintf(tw, "skipped: %d memory instructions not on shared memory, %d shared without an active lane\n", in.SkippedNotShared, in.SkippedInactive)
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "all inputs"+cols)
	row(r.Fill)
	row(r.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	segs := fmt.Sprintf("%d segments", r.Segments)
	if r.Segments == 1 {
		segs = "one segment"
	}
	fmt.Fprintf(w, "\n%d cycles in lockstep (%s, %d refill stores, %.2f s)\n", r.StreamCycles, segs, r.Refills, r.Seconds)
	if r.Agree() {
		_, err := fmt.Fprintf(w, "agree: all %d instructions took the predicted passes, one bank cycle each\n", r.Total.Instructions)
		return err
	}
	fmt.Fprintf(w, "DISAGREE: %d of %d instructions\n", len(r.Disagreements), r.Total.Instructions)
	for _, d := range r.Disagreements {
		refused := ""
		if d.Refused {
			refused = " (refused)"
		}
		fmt.Fprintf(w, "  %s:%d %s: predicted %d passes, measured %d passes in %d cycles%s\n", d.File, d.Line, d.Instr, d.Predicted, d.Measured, d.Cycles, refused)
	}
	return nil
}
