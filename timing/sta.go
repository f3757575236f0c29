package timing

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// Options sets the environment of the design under analysis. Start from
// DefaultOptions: the zero Options has no valid driver.
type Options struct {
	// DriverSize is the size, relative to a unit inverter, of the inverter
	// that drives each primary input bit; it must be positive. The input's
	// arrival time is that driver's delay with its load: Cload/DriverSize
	// + 1 τ. Default 1.
	DriverSize float64
	// OutputLoad is the load on each output port bit, in unit-inverter
	// input caps; 0 leaves outputs unloaded. Default 1.
	OutputLoad float64
}

// DefaultOptions is a unit inverter driving every input bit and one unit
// inverter load on every output bit.
func DefaultOptions() Options { return Options{DriverSize: 1, OutputLoad: 1} }

func (o Options) check() error {
	if !(o.DriverSize > 0) || math.IsInf(o.DriverSize, 0) {
		return fmt.Errorf("timing: driver size %v must be positive and finite", o.DriverSize)
	}
	if !(o.OutputLoad >= 0) || math.IsInf(o.OutputLoad, 0) {
		return fmt.Errorf("timing: output load %v must be finite and not negative", o.OutputLoad)
	}
	return nil
}

// Step is one stage of the critical path: the primary-input driver, a DFF
// (clock to Q) or a combinational gate.
type Step struct {
	// Gate is the instance, "g<index>" into Design.Gates, or "input" for
	// the inverter that drives a primary input.
	Gate string `json:"gate"`
	// Cell is the library cell, e.g. "NAND2" ("INV" for the input driver).
	Cell string `json:"cell"`
	// From is the input net the path enters by: the worst pin's net, the
	// clock for a DFF, "" for the input driver.
	From string `json:"from"`
	// Net is the output net the stage drives.
	Net string `json:"net"`
	// Fanout counts the gate pins and output port bits on Net.
	Fanout int `json:"fanout"`
	// Load is Net's capacitance in unit-inverter input caps.
	Load float64 `json:"load"`
	// Delay is the stage delay and Arrival the arrival time at Net, both
	// in FO4.
	Delay   float64 `json:"delay"`
	Arrival float64 `json:"arrival"`
}

// Result is the timing and area report of one design. All real numbers are
// rounded to 4 decimals.
type Result struct {
	Design string `json:"design"`
	// Tau is the critical path delay in τ and FO4 the same in FO4 (= Tau/5).
	Tau float64 `json:"tau"`
	FO4 float64 `json:"fo4"`
	// AreaGE is the gate area in NAND2 equivalents and Transistors the
	// transistor count, summed over the gates (not the input drivers).
	AreaGE      float64 `json:"area_ge"`
	Transistors int     `json:"transistors"`
	// Gates counts all gates, GatesByKind by cell name (kinds present only).
	Gates       int            `json:"gates"`
	GatesByKind map[string]int `json:"gates_by_kind"`
	// Depth is the number of combinational gates on the critical path.
	Depth int `json:"depth"`
	// Endpoint names where the critical path ends: an output port bit, or
	// "g<index>.D" for a DFF data input.
	Endpoint string `json:"endpoint"`
	// CriticalPath lists the stages from the start point (a primary
	// input's driver or a DFF) to the endpoint. It is empty when the worst
	// endpoint is a constant.
	CriticalPath []Step `json:"critical_path"`
}

// Net sources that are not gates.
const (
	srcInput = -1
	srcConst = -2
	srcNone  = -3
)

// Analyze computes the critical path of d under opt: arrival times forward
// through the gates in their (topological) order, the worst input pin
// deciding each gate, ties going to the lowest input net number. Timing
// starts at the primary-input drivers and at DFF outputs (clock-to-Q), and
// ends at output port bits and DFF D inputs; constants arrive at 0. The
// result depends only on d and opt.
func Analyze(d *netlist.Design, opt Options) (*Result, error) {
	if d == nil {
		return nil, errors.New("timing: nil design")
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("timing: design %s: %w", d.Name, err)
	}
	outBits := 0
	for _, p := range d.Outputs() {
		outBits += p.Width()
	}
	if outBits == 0 {
		return nil, fmt.Errorf("timing: design %s has no outputs", d.Name)
	}

	n := d.NumNets
	load := make([]float64, n)
	fanout := make([]int32, n)
	for _, g := range d.Gates {
		cin := Cells[g.Kind].Cin
		for pin, in := range g.In {
			load[in] += cin[pin]
			fanout[in]++
		}
	}
	for _, p := range d.Outputs() {
		for _, b := range p.Bits {
			load[b] += opt.OutputLoad
			fanout[b]++
		}
	}

	// src[net] is the driving gate's index or a srcXxx; pin[net] is the
	// driving gate's worst input pin (-1 for start points).
	arr := make([]float64, n)
	src := make([]int32, n)
	pin := make([]int8, n)
	for i := range src {
		src[i], pin[i] = srcNone, -1
	}
	src[netlist.Const0], src[netlist.Const1] = srcConst, srcConst
	inv := &Cells[netlist.INV]
	for _, p := range d.Inputs() {
		for _, b := range p.Bits {
			src[b] = srcInput
			arr[b] = load[b]/opt.DriverSize + inv.P
		}
	}
	dff := &Cells[netlist.DFF]
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			src[g.Out] = int32(gi)
			arr[g.Out] = dff.Delay(0, load[g.Out])
		}
	}
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			continue
		}
		c := &Cells[g.Kind]
		best, bestPin := math.Inf(-1), -1
		for p, in := range g.In {
			if src[in] == srcNone {
				return nil, fmt.Errorf("timing: design %s: gate g%d (%s) reads %s before its driver: gates are not in topological order",
					d.Name, gi, g.Kind, d.NetName(in))
			}
			t := arr[in] + c.Delay(p, load[g.Out])
			if t > best || (t == best && in < g.In[bestPin]) {
				best, bestPin = t, p
			}
		}
		arr[g.Out], src[g.Out], pin[g.Out] = best, int32(gi), int8(bestPin)
	}

	// The worst endpoint; ties go to the lowest net number.
	end, endName := netlist.Net(-1), ""
	consider := func(b netlist.Net, name func() string) {
		if end < 0 || arr[b] > arr[end] || (arr[b] == arr[end] && b < end) {
			end, endName = b, name()
		}
	}
	for _, p := range d.Outputs() {
		for i, b := range p.Bits {
			consider(b, func() string {
				if p.Width() == 1 {
					return p.Name
				}
				return fmt.Sprintf("%s[%d]", p.Name, i)
			})
		}
	}
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			consider(g.In[0], func() string { return fmt.Sprintf("g%d.D", gi) })
		}
	}

	// Walk back from the endpoint to the start point.
	var path []Step
	depth := 0
	for net := end; src[net] != srcConst; {
		st := Step{Net: d.NetName(net), Fanout: int(fanout[net]), Load: load[net], Arrival: arr[net]}
		var prev netlist.Net = -1
		switch gi := src[net]; {
		case gi == srcInput:
			st.Gate, st.Cell = "input", netlist.INV.String()
			st.Delay = arr[net]
		default:
			g := d.Gates[gi]
			c := &Cells[g.Kind]
			st.Gate, st.Cell = fmt.Sprintf("g%d", gi), g.Kind.String()
			if g.Kind == netlist.DFF {
				st.From = d.Clock
				if st.From == "" {
					st.From = "clk"
				}
				st.Delay = c.Delay(0, load[net])
			} else {
				p := int(pin[net])
				prev = g.In[p]
				st.From = d.NetName(prev)
				st.Delay = c.Delay(p, load[net])
				depth++
			}
		}
		path = append(path, st)
		if prev < 0 {
			break
		}
		net = prev
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	for i := range path {
		s := &path[i]
		s.Load, s.Delay, s.Arrival = round4(s.Load), round4(s.Delay/TauPerFO4), round4(s.Arrival/TauPerFO4)
	}

	r := &Result{
		Design:       d.Name,
		Tau:          round4(arr[end]),
		FO4:          round4(arr[end] / TauPerFO4),
		Gates:        len(d.Gates),
		GatesByKind:  map[string]int{},
		Depth:        depth,
		Endpoint:     endName,
		CriticalPath: path,
	}
	if path == nil {
		r.CriticalPath = []Step{}
	}
	area := 0.0
	for k, cnt := range d.Stats() {
		if cnt == 0 {
			continue
		}
		c := &Cells[k]
		area += float64(cnt) * c.Area
		r.Transistors += cnt * c.Transistors
		r.GatesByKind[netlist.Kind(k).String()] = cnt
	}
	r.AreaGE = round4(area)
	return r, nil
}

// round4 rounds to 4 decimals, half away from zero.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// String is a short human-readable report with the same (rounded) numbers
// as the JSON form.
func (r *Result) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: critical path %v FO4 (%v tau), %d levels, ends at %s\n", r.Design, r.FO4, r.Tau, r.Depth, r.Endpoint)
	fmt.Fprintf(&sb, "area %v GE, %d transistors, %d gates\n", r.AreaGE, r.Transistors, r.Gates)
	fmt.Fprintf(&sb, "  %-8s %-6s %-20s %-20s %6s %9s %9s %9s\n", "gate", "cell", "from", "net", "fanout", "load", "delay", "arrival")
	for _, s := range r.CriticalPath {
		fmt.Fprintf(&sb, "  %-8s %-6s %-20s %-20s %6d %9v %9v %9v\n", s.Gate, s.Cell, s.From, s.Net, s.Fanout, s.Load, s.Delay, s.Arrival)
	}
	return sb.String()
}
