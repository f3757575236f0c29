package sta

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// A pipelined unit (netlist.Design.Pipeline, package retime) is also timed
// stage by stage: OpenSTA, with the clock at the unit's period (its
// PeriodFO4 times the library's FO4 (Report.FO4PS)), times every flip-flop D pin
// of lsugen's gates in library cells (mapped) and of the timing-driven
// netlist; the D pins are grouped by the stage their register ends, and a
// stage's figure is its worst endpoint's arrival plus that endpoint's
// library setup time (the period less OpenSTA's required time). The
// model's stage delays stand beside them: the textbook model in the mode
// that placed the registers (timing.StageDelays, the figures the cuts
// promised) and the characterized model unsized and sized, each with the
// model's setup time of timing.SetupFO4.
//
// Which stage a flip-flop ends:
//   - mapped: the instance is g<i>, lsugen's gate i, and
//     Pipeline.RegStage[i] is its stage;
//   - synthesised: Yosys 0.23 (synth -flatten, dfflibmap, abc,
//     opt_clean -purge) names the flip-flops _<n>_ but keeps the readable
//     module's register names on their Q nets: stage<k>_q[i] ends stage k
//     (1-based; stage<k>_q without an index for a one-bit bus), as does
//     <signal>_q<k>[i] (a word-level view's register, retime.PipelineWords),
//     valid_q[k] ends stage k+1, and an output register's Q net is the
//     output port it drives (<port>[i], or valid_o for the valid chain's
//     last bit), which ends the last stage. A <name>_reg form (\stage1_q_reg[3],
//     as other Yosys flows name the cells) and <port>_q are read the same.

// PipelineReport is a pipelined unit's stages, timed by OpenSTA and by
// lsugen's model.
type PipelineReport struct {
	// PeriodFO4 is the period the registers were placed for, Mode the
	// model that placed them (the textbook model, "sized" or "unsized"),
	// Latency the number of stages.
	PeriodFO4 float64 `json:"period_fo4"`
	Mode      string  `json:"mode"`
	Latency   int     `json:"latency_cycles"`
	// PeriodPS is PeriodFO4 in the library's FO4 (Report.FO4PS): the clock
	// OpenSTA's slacks are against.
	PeriodPS float64 `json:"period_ps"`
	// Stages are the stages in order.
	Stages []StageReport `json:"stages"`
	// Unassigned are the flip-flop endpoints that no stage could be found
	// for, as "flow: pin (Q net)"; none in a netlist whose register names
	// survived synthesis.
	Unassigned []string `json:"unassigned,omitempty"`
}

// StageReport is one stage. Delays in FO4 include a setup time: the
// model's timing.SetupFO4, or OpenSTA's library setup time.
type StageReport struct {
	// Stage counts from 1; FlipFlops is the number of lsugen's flip-flops
	// whose D input closes it.
	Stage     int `json:"stage"`
	FlipFlops int `json:"flip_flops"`
	// TextbookFO4 is timing.StageDelays under the textbook model in the
	// pipeline's mode, in its own FO4: what the placement promised, at
	// most PeriodFO4.
	TextbookFO4 float64 `json:"textbook_fo4"`
	// LibUnsizedFO4 and LibSizedFO4 are the characterized model's stage
	// delays in the library's FO4 (Report.FO4PS).
	LibUnsizedFO4 float64 `json:"lib_unsized_fo4"`
	LibSizedFO4   float64 `json:"lib_sized_fo4"`
	// Mapped and TimingDriven are OpenSTA's timing of the stage.
	Mapped       StageTiming `json:"mapped"`
	TimingDriven StageTiming `json:"timing_driven"`
	// The errors, 100·(model − OpenSTA)/OpenSTA: the textbook and the
	// sized model against the timing-driven flow, the unsized model
	// against the mapped netlist; null where OpenSTA timed no endpoint of
	// the stage.
	TextbookErrorPct   *float64 `json:"textbook_error_pct"`
	LibSizedErrorPct   *float64 `json:"lib_sized_error_pct"`
	LibUnsizedErrorPct *float64 `json:"lib_unsized_error_pct"`
}

// StageTiming is OpenSTA's timing of one stage in one netlist.
type StageTiming struct {
	// Endpoints is the number of flip-flop D pins timed in the stage.
	Endpoints int `json:"endpoints"`
	// ArrivalPS and SetupPS are the worst endpoint's (least slack's) data
	// arrival and library setup time; FO4 is their sum in the library's
	// FO4 (Report.FO4PS).
	ArrivalPS float64 `json:"arrival_ps"`
	SetupPS   float64 `json:"setup_ps"`
	FO4       float64 `json:"fo4"`
	// SlackPS is the stage's least slack at the period; WithinPeriod is
	// SlackPS ≥ 0.
	SlackPS      float64 `json:"slack_ps"`
	WithinPeriod bool    `json:"within_period"`
	// Register is the worst endpoint's register: its Q net (synthesised)
	// or lsugen's net name of it (mapped), with the D pin.
	Register string `json:"register"`
}

// regEndpoint is one flip-flop data pin as OpenSTA timed it.
type regEndpoint struct {
	Pin, Instance, Cell, QNet string
	// ArrivalPS is the data arrival, RequiredPS the required time at the
	// period.
	ArrivalPS, RequiredPS float64
}

var regLineRE = regexp.MustCompile(`(?m)^lsugen-reg (\S+) (\S+) (\S+) (\S+) (\S+)\s*$`)

// timeRegisters runs OpenSTA on netlist n as Time does (the same driver,
// load and input/output delays) but with the clock at periodPS, and
// returns every flip-flop data endpoint with its arrival and required
// time. clock must be the design's clock port.
func (f *Flow) timeRegisters(ctx context.Context, dir string, n *Netlist, clock, tag string, periodPS float64) ([]regEndpoint, error) {
	if clock == "" {
		return nil, fmt.Errorf("sta: %s: a pipelined unit without a clock", n.Top)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "read_liberty %s\nread_verilog %s\nlink_design %s\n", tclBrace(f.Lib.Path), tclBrace(filepath.Base(n.Path)), n.Top)
	fmt.Fprintf(&t, "create_clock -name %[1]s -period %[2]g [get_ports %[1]s]\n", tclBrace(clock), periodPS/f.Lib.TimeUnitPS)
	fmt.Fprintf(&t, "set lsugen_inputs [delete_from_list [all_inputs] [get_ports %s]]\n", tclBrace(clock))
	fmt.Fprintf(&t, `if {[llength $lsugen_inputs] > 0} {
  set_input_delay 0 -clock %[1]s $lsugen_inputs
  set_driving_cell -lib_cell %[2]s -pin %[3]s $lsugen_inputs
}
set_output_delay 0 -clock %[1]s [all_outputs]
set_load %[4]g [all_outputs]
foreach pe [find_timing_paths -path_delay max -group_count 1000000000 -endpoint_count 1] {
  set ep [get_property $pe endpoint]
  set name [get_full_name $ep]
  if {[string first / $name] < 0} { continue }
  set cell [get_cells -of_objects $ep]
  set q "-"
  foreach p [get_pins -of_objects $cell] {
    if {[get_property $p direction] == "output"} {
      set net [get_nets -quiet -of_objects $p]
      if {$net != ""} { set q [get_full_name $net] }
    }
  }
  puts "lsugen-reg [format %%.9e [$pe data_arrival_time]] [format %%.9e [$pe data_required_time]] $name [get_property $cell ref_name] $q"
}
exit
`, tclBrace(clock), f.Driver.Name, f.DriverOut, f.OutputLoad)
	tcl := tag + "_sta.tcl"
	if err := os.WriteFile(filepath.Join(dir, tcl), []byte(t.String()), 0o644); err != nil {
		return nil, err
	}
	step := "sta " + tag + " " + n.Top
	out, err := f.runSTA(ctx, step, dir, tcl)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, tag+"_sta.log"), out, 0o644); err != nil {
		return nil, err
	}
	var eps []regEndpoint
	for _, m := range regLineRE.FindAllStringSubmatch(string(out), -1) {
		c, ok := f.Lib.Cells[m[4]]
		if !ok || !c.Sequential {
			continue
		}
		arr, err1 := strconv.ParseFloat(m[1], 64)
		req, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			return nil, outputError(step, fmt.Errorf("times %q %q", m[1], m[2]), out)
		}
		inst := m[3]
		if i := strings.LastIndexByte(inst, '/'); i >= 0 {
			inst = inst[:i]
		}
		eps = append(eps, regEndpoint{Pin: m[3], Instance: inst, Cell: m[4], QNet: m[5], ArrivalPS: arr * 1e12, RequiredPS: req * 1e12})
	}
	return eps, nil
}

// stageTimings are a unit's register endpoints in both netlists.
type stageTimings struct {
	periodPS             float64
	mapped, timingDriven []regEndpoint
}

// timeStages times the D pins of the mapped and the timing-driven netlist
// of a pipelined unit at its period (fo4PS the library's FO4 (Report.FO4PS)).
func (f *Flow) timeStages(ctx context.Context, d *netlist.Design, u *UnitResult, fo4PS float64) (*stageTimings, error) {
	st := &stageTimings{periodPS: d.Pipeline.PeriodFO4 * fo4PS}
	mapped := &Netlist{Path: filepath.Join(u.Dir, "mapped_netlist.v"), Top: d.Name + "_mapped"}
	var err error
	if st.mapped, err = f.timeRegisters(ctx, u.Dir, mapped, d.Clock, "mapped_stages", st.periodPS); err != nil {
		return nil, err
	}
	if st.timingDriven, err = f.timeRegisters(ctx, u.Dir, &u.TimingDriven.Netlist, d.Clock, "timing_driven_stages", st.periodPS); err != nil {
		return nil, err
	}
	return st, nil
}

// staged is a pipelined design whose registers are attributed to stages:
// d.Pipeline set with a RegStage (a variable-latency unit has none).
func staged(d *netlist.Design) bool {
	p := d.Pipeline
	return p != nil && p.Latency >= 1 && len(p.RegStage) == len(d.Gates)
}

var (
	mappedInstRE = regexp.MustCompile(`^g(\d+)$`)
	regNameRE    = regexp.MustCompile(`^(.*?)(?:_reg)?(?:\[(\d+)\])?$`)
	stageRegRE   = regexp.MustCompile(`^(?:stage(\d+)_q|\w+_q(\d+))$`) // stage<k>_q, or <signal>_q<k> of a word-level view
)

// mappedStage is the stage a flip-flop instance of the mapped netlist
// ends, -1 if none.
func mappedStage(d *netlist.Design, inst string) int {
	m := mappedInstRE.FindStringSubmatch(inst)
	if m == nil {
		return -1
	}
	gi, err := strconv.Atoi(m[1])
	if err != nil || gi >= len(d.Gates) || d.Gates[gi].Kind != netlist.DFF {
		return -1
	}
	return int(d.Pipeline.RegStage[gi])
}

// synthStage is the stage (0-based) that a synthesised flip-flop whose Q
// net is named qnet ends, -1 if its name says none.
func synthStage(d *netlist.Design, qnet string) int {
	L := d.Pipeline.Latency
	m := regNameRE.FindStringSubmatch(strings.TrimPrefix(qnet, `\`))
	base, idx := m[1], 0
	if m[2] != "" {
		idx, _ = strconv.Atoi(m[2])
	}
	if s := stageRegRE.FindStringSubmatch(base); s != nil {
		k, err := strconv.Atoi(s[1] + s[2])
		if err != nil || k < 1 || k >= L {
			return -1
		}
		return k - 1
	}
	if base == "valid_q" {
		if idx >= L {
			return -1
		}
		return idx
	}
	for _, p := range d.Outputs() {
		if base == p.Name || base == p.Name+"_q" {
			return L - 1
		}
	}
	return -1
}

// groupStages gathers endpoints by stage (of L) with stageOf; those with
// no stage are returned by name.
func groupStages(eps []regEndpoint, L int, fo4PS, periodPS float64, name func(regEndpoint) string, stageOf func(regEndpoint) int) ([]StageTiming, []string) {
	st := make([]StageTiming, L)
	var none []string
	for _, e := range eps {
		k := stageOf(e)
		if k < 0 || k >= L {
			none = append(none, fmt.Sprintf("%s (%s)", e.Pin, e.QNet))
			continue
		}
		s := &st[k]
		slack := e.RequiredPS - e.ArrivalPS
		if s.Endpoints == 0 || slack < s.SlackPS {
			setup := periodPS - e.RequiredPS
			s.SlackPS, s.ArrivalPS, s.SetupPS = slack, e.ArrivalPS, setup
			s.FO4 = (e.ArrivalPS + setup) / fo4PS
			s.Register = name(e)
		}
		s.Endpoints++
	}
	for k := range st {
		s := &st[k]
		s.WithinPeriod = s.Endpoints > 0 && s.SlackPS >= 0
		s.ArrivalPS, s.SetupPS, s.SlackPS, s.FO4 = round(s.ArrivalPS, 1), round(s.SetupPS, 1), round(s.SlackPS, 1), round(s.FO4, 2)
	}
	return st, none
}

// newPipelineReport groups the endpoints of st by stage; the model's
// figures are set by setStageModels.
func newPipelineReport(d *netlist.Design, st *stageTimings, fo4PS float64) *PipelineReport {
	p := d.Pipeline
	pr := &PipelineReport{PeriodFO4: p.PeriodFO4, Mode: p.Mode, Latency: p.Latency, PeriodPS: round(st.periodPS, 1)}
	// lsugen's net names of the mapped flip-flops' outputs, for the report.
	qName := func(e regEndpoint) string {
		if m := mappedInstRE.FindStringSubmatch(e.Instance); m != nil {
			if gi, err := strconv.Atoi(m[1]); err == nil && gi < len(d.Gates) {
				if n, ok := d.NetNames[d.Gates[gi].Out]; ok {
					return n + " " + e.Pin
				}
			}
		}
		return e.Pin
	}
	mapped, noneM := groupStages(st.mapped, p.Latency, fo4PS, st.periodPS, qName, func(e regEndpoint) int { return mappedStage(d, e.Instance) })
	td, noneT := groupStages(st.timingDriven, p.Latency, fo4PS, st.periodPS, func(e regEndpoint) string { return e.QNet + " " + e.Pin },
		func(e regEndpoint) int { return synthStage(d, e.QNet) })
	for _, n := range noneM {
		pr.Unassigned = append(pr.Unassigned, "mapped: "+n)
	}
	for _, n := range noneT {
		pr.Unassigned = append(pr.Unassigned, "timing-driven: "+n)
	}
	ff := make([]int, p.Latency)
	for gi, g := range d.Gates {
		if k := p.RegStage[gi]; g.Kind == netlist.DFF && k >= 0 && int(k) < p.Latency {
			ff[k]++
		}
	}
	for k := 0; k < p.Latency; k++ {
		pr.Stages = append(pr.Stages, StageReport{Stage: k + 1, FlipFlops: ff[k], Mapped: mapped[k], TimingDriven: td[k]})
	}
	return pr
}

// setStageModels sets the model's stage delays and errors of pr, a
// pipelined design d's stages: the textbook model in the pipeline's mode,
// and the characterized one (libOpt, its mode ignored) unsized and sized,
// in the library's FO4 (Report.FO4PS) fo4PS.
func setStageModels(pr *PipelineReport, d *netlist.Design, libOpt timing.Options, fo4PS float64) error {
	placed, err := timing.PipelineOptionsIn(d.Pipeline.Mode, libOpt.Tech)
	if err != nil {
		return err
	}
	textbook, err := timing.StageDelays(d, placed)
	if err != nil {
		return err
	}
	if len(textbook) != len(pr.Stages) {
		return fmt.Errorf("sta: %s: %d stages in the report, %d in the design", d.Name, len(pr.Stages), len(textbook))
	}
	var lib [2][]float64
	for i, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
		o := libOpt
		o.Mode = mode
		if lib[i], err = libStageDelays(d, o, fo4PS); err != nil {
			return err
		}
	}
	stageErr := func(model float64, s StageTiming) *float64 {
		if s.Endpoints == 0 {
			return nil
		}
		return errorPct(model, s.FO4)
	}
	for k := range pr.Stages {
		s := &pr.Stages[k]
		s.TextbookFO4 = round(textbook[k], 2)
		s.LibUnsizedFO4, s.LibSizedFO4 = round(lib[0][k], 2), round(lib[1][k], 2)
		s.TextbookErrorPct = stageErr(textbook[k], s.TimingDriven)
		s.LibSizedErrorPct = stageErr(lib[1][k], s.TimingDriven)
		s.LibUnsizedErrorPct = stageErr(lib[0][k], s.Mapped)
	}
	return nil
}

// libStageDelays is timing.StageDelays for the characterized model opt
// with its delays in ps converted by the library's FO4 fo4PS (the
// model's own FO4, timing.Options.FO4PS), plus the library flip-flop's
// setup time (timing.Options.SetupFO4: timing.SetupFO4 without one).
func libStageDelays(d *netlist.Design, opt timing.Options, fo4PS float64) ([]float64, error) {
	if opt.Tech == nil {
		return nil, fmt.Errorf("sta: the characterized model has no technology")
	}
	nt, err := timing.Times(d, opt)
	if err != nil {
		return nil, err
	}
	p := d.Pipeline
	setup := timing.SetupFO4
	if opt.Tech.SetupPS > 0 {
		setup = opt.Tech.SetupPS / fo4PS
	}
	st := make([]float64, p.Latency)
	for gi, g := range d.Gates {
		if k := p.RegStage[gi]; g.Kind == netlist.DFF && k >= 0 && int(k) < p.Latency {
			st[k] = math.Max(st[k], nt.Arrival[g.In[0]]*opt.Tech.TauPS/fo4PS+setup)
		}
	}
	return st, nil
}

// PipelinedUnits are the report's units with stages.
func (r *Report) pipelinedUnits() []UnitReport {
	var out []UnitReport
	for _, u := range r.Units {
		if u.Pipeline != nil && len(u.Pipeline.Stages) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// writeStagesText prints each pipelined unit's stages under the units'
// table; nothing when there are none.
func (r *Report) writeStagesText(w io.Writer) error {
	us := r.pipelinedUnits()
	if len(us) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nstages    OpenSTA at the flip-flops' D pins, clock at the period in the library's FO4, arrival + library setup;\n")
	fmt.Fprintf(w, "          the model's stages + setup (the library flip-flop's for lib, %g FO4 for textbook): textbook (the mode that placed the registers, its own FO4), lib unsized and sized\n", timing.SetupFO4)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	nw := len("unit")
	for _, u := range us {
		nw = max(nw, len(u.Name))
	}
	fmt.Fprintf(tw, "%-*s\tperiod\tstage\tflops\ttextbook\tlib unsized\tmapped FO4\tslack ps\terr\tlib sized\ttd FO4\tslack ps\terr\ttextbook err\t\n", nw, "unit")
	for _, u := range us {
		p := u.Pipeline
		for _, s := range p.Stages {
			fmt.Fprintf(tw, "%-*s\t%.4g FO4 %s\t%d\t%d\t%.2f\t%.2f\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t\n",
				nw, u.Name, p.PeriodFO4, p.Mode, s.Stage, s.FlipFlops, s.TextbookFO4, s.LibUnsizedFO4,
				stageFO4(s.Mapped), stageSlack(s.Mapped), pct(s.LibUnsizedErrorPct),
				s.LibSizedFO4, stageFO4(s.TimingDriven), stageSlack(s.TimingDriven), pct(s.LibSizedErrorPct), pct(s.TextbookErrorPct))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, u := range us {
		for _, n := range u.Pipeline.Unassigned {
			fmt.Fprintf(w, "unassigned %s: %s\n", u.Name, n)
		}
	}
	return nil
}

// WriteStagesMarkdown prints the pipelined units' stages as a Markdown
// table (as in docs/pipelining.md); nothing when there are none.
func (r *Report) WriteStagesMarkdown(w io.Writer) error {
	us := r.pipelinedUnits()
	if len(us) == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("| unit | period | stage | flip-flops | textbook | model unsized | lsugen's gates in library cells (slack) | error | model sized | flow timing-driven (slack) | error | textbook error |\n")
	bw.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, u := range us {
		p := u.Pipeline
		for _, s := range p.Stages {
			fmt.Fprintf(bw, "| %s | %g FO4 (%.0f ps), %s | %d | %d | %.2f | %.2f | %s | %s | %.2f | %s | %s | %s |\n",
				u.Name, p.PeriodFO4, p.PeriodPS, p.Mode, s.Stage, s.FlipFlops, s.TextbookFO4, s.LibUnsizedFO4,
				stageCell(s.Mapped), pct(s.LibUnsizedErrorPct), s.LibSizedFO4, stageCell(s.TimingDriven), pct(s.LibSizedErrorPct), pct(s.TextbookErrorPct))
		}
	}
	return bw.Flush()
}

func stageFO4(s StageTiming) string {
	if s.Endpoints == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", s.FO4)
}

func stageSlack(s StageTiming) string {
	if s.Endpoints == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", s.SlackPS)
}

// stageCell is a stage's OpenSTA figure with its slack, ✗ when negative.
func stageCell(s StageTiming) string {
	if s.Endpoints == 0 {
		return "n/a"
	}
	mark := ""
	if !s.WithinPeriod {
		mark = " ✗"
	}
	return fmt.Sprintf("%.2f (%+.0f ps)%s", s.FO4, s.SlackPS, mark)
}
