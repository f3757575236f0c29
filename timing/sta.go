package timing

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
	// Mode is Unsized (gates as built; also the zero value) or Sized
	// (buffered fanout).
	Mode Mode
	// Wire is the wire-load model; DefaultWire unless set, the zero Wire
	// makes wires free.
	Wire Wire
	// Tech is the gate table the delays and areas come from: nil for the
	// textbook table Cells, or a library's, characterized from its
	// liberty (package timing/liberty). Its wire model is not applied
	// by itself: OptionsFor sets Wire from it.
	Tech *Tech
	// FixedSlew reads a characterized Tech's figures at its reference
	// transition everywhere instead of propagating transitions net by
	// net: the model before slew propagation, kept for comparison. It
	// has no effect on the textbook table, which has no transitions.
	FixedSlew bool
}

// Wire is the wire-load model, in the manner of a synthesis tool's wire-load
// tables (Synopsys Design Compiler's): before placement a net's wire is
// estimated from its fanout F and from the size of the block it lies in.
// Each fanout adds wire capacitance
//
//	Cwire/F = CapPerFanout + AreaCapPerFanout · (A / RefAreaGE)^AreaExponent
//
// unit-inverter input caps, A being the design's gate area in GE. The
// first term is the short local wire every connection has; the second
// grows with the block, as average wire length does with the gate count
// under Rent's rule (Donath: length ∝ N^(p−1/2) for Rent exponent p, so an
// exponent of 0.3 is p = 0.8). Wire resistance is neglected. The zero Wire
// makes wires free: the textbook logical-effort model.
//
// A liberty's wire-load table is not linear in the fanout; FanoutCap, when
// set, replaces the fanout term by that table: FanoutCap[F-1] is the wire
// of a net of fanout F, and each fanout beyond the table adds FanoutSlope.
type Wire struct {
	CapPerFanout     float64   `json:"cap_per_fanout"`
	AreaCapPerFanout float64   `json:"area_cap_per_fanout"`
	RefAreaGE        float64   `json:"ref_area_ge"`
	AreaExponent     float64   `json:"area_exponent"`
	FanoutCap        []float64 `json:"fanout_cap,omitempty"`
	FanoutSlope      float64   `json:"fanout_slope,omitempty"`
}

// DefaultWire is the one parameter set lsugen uses. It was fitted once, by
// a grid search over the four numbers, to the six delays that 003_*
// measured with Design Compiler (all-to-all 55.92 / 112.25 FO4, neighbor
// 5 / 5, monotonicity detector 46 / 55, at 32 / 64 lanes) so that the
// figures of this model land in the thesis's cycle tables at 40, 48 and
// 56 FO4 and within 20% of each delay; see docs/timing-model.md.
var DefaultWire = Wire{CapPerFanout: 2, AreaCapPerFanout: 6.5, RefAreaGE: 10000, AreaExponent: 0.3}

// perFanout is the wire capacitance per fanout in a design of area GE.
func (w Wire) perFanout(area float64) float64 {
	c := w.CapPerFanout
	if w.AreaCapPerFanout != 0 && w.RefAreaGE > 0 {
		c += w.AreaCapPerFanout * math.Pow(area/w.RefAreaGE, w.AreaExponent)
	}
	return c
}

// netCap is the wire capacitance of a net of the given fanout in a design
// of area GE.
func (w Wire) netCap(fanout int, area float64) float64 {
	if fanout <= 0 {
		return 0
	}
	if n := len(w.FanoutCap); n > 0 {
		c := w.FanoutCap[min(fanout, n)-1]
		if fanout > n {
			c += float64(fanout-n) * w.FanoutSlope
		}
		return c + float64(fanout)*(w.perFanout(area)-w.CapPerFanout)
	}
	return float64(fanout) * w.perFanout(area)
}

// FanoutCapAt is the wire capacitance of a net of the given fanout in a
// block too small for the area term.
func (w Wire) FanoutCapAt(fanout int) float64 { return w.netCap(fanout, 0) }

// TauPerFO4 is the FO4 delay in τ under the options' gate table and wire
// model, measured as the thesis does: an inverter driving four copies of
// itself, in a block too small for the area term. With the textbook table
// it is 1·(4 + 4·CapPerFanout) + 1.
func (o Options) TauPerFO4() float64 {
	inv := &o.cells()[netlist.INV]
	return inv.Delay(0, 4*inv.Cin[0]+o.Wire.netCap(4, 0))
}

// cells is the gate table in use.
func (o Options) cells() *[netlist.NumKinds]Cell {
	if o.Tech != nil {
		return &o.Tech.Cells
	}
	return &Cells
}

// Mode selects the sizing regime the delays are computed in.
type Mode string

const (
	// Unsized leaves every gate at unit size with unbuffered fanout, as
	// built: a stage's delay grows linearly with its load.
	Unsized Mode = "unsized"
	// Sized drives each stage's load through the optimally tapered chain
	// of inverters that Logical Effort prescribes: for electrical effort F
	// the stage takes min over N of N·F^(1/N) + p + (N-1)·p_inv, so delay
	// grows with the logarithm of fanout, the regime of a timing-driven
	// flow that sizes gates and builds buffer trees. The inserted
	// inverters count in area and transistors.
	Sized Mode = "sized"
)

// Words says what the mode does, in a figure's or a table's words; ""
// is Unsized, as in Options.
func (m Mode) Words() string {
	if m == Sized {
		return "sized: logical-effort buffer trees on every stage"
	}
	return "unsized: gates as built, unbuffered fanout"
}

// DefaultOptions is a unit inverter driving every input bit and one unit
// inverter load on every output bit, unsized.
func DefaultOptions() Options {
	return Options{DriverSize: 1, OutputLoad: 1, Mode: Unsized, Wire: DefaultWire}
}

// stage is the delay in τ of a cell pin driving load, and the number of
// buffer inverters and their total size (in unit inverters) that Sized
// mode inserts.
func (o Options) stage(c *Cell, pin int, load float64) (delay float64, bufs int, bufSize float64) {
	f := c.G[pin] * load / c.Cin[pin]
	if o.Mode != Sized {
		return f + c.parasitic(pin), 0, 0
	}
	return buffered(f, c.parasitic(pin), o.cells()[netlist.INV].P)
}

// buffered returns the least delay of a stage of effort f and parasitic p
// followed by n ≥ 0 inverters of parasitic pinv, each stage bearing effort
// f^(1/(n+1)).
func buffered(f, p, pinv float64) (delay float64, bufs int, bufSize float64) {
	delay = f + p
	rhoBest := 0.0
	for n := 1; n < 64; n++ {
		rho := math.Pow(f, 1/float64(n+1))
		d := float64(n+1)*rho + p + float64(n)*pinv
		if d >= delay {
			break
		}
		delay, bufs, rhoBest = d, n, rho
	}
	// The inverters' sizes of the best chain only (a hot path of every
	// sized analysis), summed as before, so the result is the same.
	for k := 1; k <= bufs; k++ {
		bufSize += math.Pow(rhoBest, float64(k))
	}
	return delay, bufs, bufSize
}

func (o Options) check() error {
	if !(o.DriverSize > 0) || math.IsInf(o.DriverSize, 0) {
		return fmt.Errorf("timing: driver size %v must be positive and finite", o.DriverSize)
	}
	if !(o.OutputLoad >= 0) || math.IsInf(o.OutputLoad, 0) {
		return fmt.Errorf("timing: output load %v must be finite and not negative", o.OutputLoad)
	}
	w := o.Wire
	for _, v := range append([]float64{w.CapPerFanout, w.AreaCapPerFanout, w.RefAreaGE, w.AreaExponent, w.FanoutSlope}, w.FanoutCap...) {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("timing: wire-load figures %+v must be finite and not negative", w)
		}
	}
	if w.AreaCapPerFanout > 0 && w.RefAreaGE == 0 {
		return fmt.Errorf("timing: the wire's area term needs a reference area")
	}
	if o.Mode != "" && o.Mode != Unsized && o.Mode != Sized {
		return fmt.Errorf("timing: mode %q is not %q or %q", o.Mode, Unsized, Sized)
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
	// Buffers is the number of inverters Sized mode puts after the stage.
	Buffers int `json:"buffers,omitempty"`
}

// Result is the timing and area report of one design. All real numbers are
// rounded to 4 decimals.
type Result struct {
	Design string `json:"design"`
	// Mode is the sizing regime of the figures: "unsized" or "sized".
	Mode string `json:"mode"`
	// Tech names the gate table: "" for the textbook table, else the
	// characterized library; DelayPS is then the critical path in ps.
	Tech    string  `json:"tech,omitempty"`
	DelayPS float64 `json:"delay_ps,omitempty"`
	// Tau is the critical path delay in τ and FO4 the same in FO4 (Tau /
	// TauPerFO4, the FO4 delay under the same gate table and wire model).
	Tau       float64 `json:"tau"`
	FO4       float64 `json:"fo4"`
	TauPerFO4 float64 `json:"tau_per_fo4"`
	// AreaGE is the gate area in NAND2 equivalents and Transistors the
	// transistor count, summed over the gates (not the input drivers).
	AreaGE      float64 `json:"area_ge"`
	Transistors int     `json:"transistors"`
	// Buffers counts the inverters Sized mode inserts (in area and
	// transistors); 0 when unsized.
	Buffers int `json:"buffers,omitempty"`
	// Gates counts all gates, GatesByKind by cell name (kinds present only).
	Gates       int            `json:"gates"`
	GatesByKind map[string]int `json:"gates_by_kind"`
	// Depth is the number of combinational gates on the critical path.
	Depth int `json:"depth"`
	// Endpoint names where the critical path ends: an output port bit,
	// "g<index>.D" for a DFF data input, or INSTANCE.PORT[BIT] for a
	// memory's input (bank3.raddr_i[1]).
	Endpoint string `json:"endpoint"`
	// CriticalPath lists the stages from the start point (a primary
	// input's driver, a DFF, or a memory's read data: Gate
	// INSTANCE.rdata_o[BIT]) to the endpoint, and for a memory's input
	// a last stage for its setup (Gate the endpoint). It is empty when
	// the worst endpoint is a constant.
	CriticalPath []Step `json:"critical_path"`
	// Paths are the design's named paths (e.g. a multiplexer's added
	// delay), each timed on its own.
	Paths []PathResult `json:"paths,omitempty"`
	// PathsGates and PathsAreaGE are the combinational gates on at least
	// one named path and their area: the paths' logic with each shared
	// gate counted once.
	PathsGates  int     `json:"paths_gates,omitempty"`
	PathsAreaGE float64 `json:"paths_area_ge,omitempty"`
	// Storage groups the design's state bits (DFFs), as the generator
	// names them; StorageBits is the total DFF count.
	Storage     []netlist.Storage `json:"storage,omitempty"`
	StorageBits int               `json:"storage_bits,omitempty"`
	// Memories are the design's memory macros (not DFFs, not in
	// StorageBits); MemoryBits and MemoryAreaGE their totals, the latter
	// included in AreaGE (and their 6T cells in Transistors).
	Memories     []MemoryResult `json:"memories,omitempty"`
	MemoryBits   int            `json:"memory_bits,omitempty"`
	MemoryAreaGE float64        `json:"memory_area_ge,omitempty"`
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
// starts at the primary-input drivers, at DFF outputs (clock-to-Q) and at
// memory read data (the macro's access time), and ends at output port
// bits, DFF D inputs and memory inputs (plus the macro's setup time);
// constants arrive at 0. The result depends only on d and opt.
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
	if err := checkMemFigures(d); err != nil {
		return nil, err
	}
	outBits := 0
	for _, p := range d.Outputs() {
		outBits += p.Width()
	}
	if outBits == 0 {
		return nil, fmt.Errorf("timing: design %s has no outputs", d.Name)
	}

	nt, err := propagate(d, opt)
	if err != nil {
		return nil, err
	}
	cells, load, fanout, arr, src, pin := nt.cells, nt.load, nt.fanout, nt.arr, nt.src, nt.pin
	driver, bufCount, bufSize, tauPerFO4 := nt.driver, nt.bufCount, nt.bufSize, nt.tauPerFO4
	inv := &cells[netlist.INV]

	// The worst endpoint, by its arrival and for a memory input the
	// macro's setup (endSetup, τ; endMem the memory, else -1); ties go
	// to the lowest net number.
	end, endName, endAt, endSetup, endMem := netlist.Net(-1), "", 0.0, 0.0, -1
	considerAt := func(b netlist.Net, setup float64, mem int, name func() string) {
		if t := arr[b] + setup; end < 0 || t > endAt || (t == endAt && b < end) {
			end, endName, endAt, endSetup, endMem = b, name(), t, setup, mem
		}
	}
	consider := func(b netlist.Net, name func() string) { considerAt(b, 0, -1, name) }
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
	for mi := range d.Memories {
		m := &d.Memories[mi]
		for _, p := range memInputs(m) {
			for i, b := range p.bus {
				considerAt(b, m.SetupFO4*tauPerFO4, mi, func() string { return memBitName(m, p.port, i, len(p.bus)) })
			}
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
			st.Delay, st.Buffers, _ = opt.stage(&driver, 0, load[net])
		case memIndex(gi) >= 0:
			m := &d.Memories[memIndex(gi)]
			st.Gate, st.Cell, st.From = memBitName(m, netlist.BankRData, slices.Index(m.RData, net), len(m.RData)), m.Module, clockName(d)
			st.Delay = m.AccessFO4 * tauPerFO4
		default:
			g := d.Gates[gi]
			c := &cells[g.Kind]
			st.Gate, st.Cell = fmt.Sprintf("g%d", gi), g.Kind.String()
			if g.Kind == netlist.DFF {
				st.From = clockName(d)
				st.Delay, st.Buffers, _ = opt.stage(c, 0, load[net])
			} else {
				p := int(pin[net])
				prev = g.In[p]
				st.From = d.NetName(prev)
				st.Delay, st.Buffers, _ = opt.stage(c, p, load[net])
				depth++
			}
		}
		if nt.slew != nil {
			// With transitions, the stage's share of the arrival time
			// (the worse of its two edges).
			st.Delay = arr[net]
			if prev >= 0 {
				st.Delay -= arr[prev]
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
	if endMem >= 0 {
		// The memory's setup: a last stage into the macro's input pin.
		path = append(path, Step{Gate: endName, Cell: d.Memories[endMem].Module, From: d.NetName(end), Net: d.NetName(end),
			Fanout: int(fanout[end]), Load: load[end], Delay: endSetup, Arrival: endAt})
	}
	for i := range path {
		s := &path[i]
		s.Load, s.Delay, s.Arrival = round4(s.Load), round4(s.Delay/tauPerFO4), round4(s.Arrival/tauPerFO4)
	}

	r := &Result{
		Design:       d.Name,
		Tau:          round4(endAt),
		FO4:          round4(endAt / tauPerFO4),
		TauPerFO4:    round4(tauPerFO4),
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
		c := &cells[k]
		area += float64(cnt) * c.Area
		r.Transistors += cnt * c.Transistors
		r.GatesByKind[netlist.Kind(k).String()] = cnt
	}
	area += bufSize * inv.Area
	r.Transistors += bufCount * inv.Transistors
	var memArea float64
	r.Memories, r.MemoryBits, memArea = memResults(d)
	area += memArea
	r.MemoryAreaGE = round4(memArea)
	r.Transistors += r.MemoryBits * MemTransistorsPerBit
	r.Buffers = bufCount
	r.Mode = string(Unsized)
	if opt.Mode == Sized {
		r.Mode = string(Sized)
	}
	r.AreaGE = round4(area)
	if opt.Tech != nil {
		r.Tech = opt.Tech.Name
		r.DelayPS = round4(endAt * opt.Tech.TauPS)
	}
	r.Paths, r.PathsGates, r.PathsAreaGE = namedPaths(d, opt, nt)
	r.Storage = d.Storage
	r.StorageBits = r.GatesByKind[netlist.DFF.String()]
	return r, nil
}

// netTiming is the forward pass of the analysis: every net's load, fanout
// and arrival time (in τ) and where its worst arrival comes from.
type netTiming struct {
	cells  *[netlist.NumKinds]Cell
	load   []float64
	fanout []int32
	arr    []float64
	// src[net] is the driving gate's index or a srcXxx; pin[net] is the
	// driving gate's worst input pin (-1 for start points).
	src []int32
	pin []int8
	// slew is every net's transition in τ when the options propagate
	// transitions (a characterized Tech), else nil: the worse of its
	// rising and falling edge's (see propagateEdges); arr is then the
	// later of the two edges' arrivals.
	slew   []float64
	driver Cell // the primary inputs' driver
	// bufCount and bufSize are the inverters Sized mode inserts.
	bufCount  int
	bufSize   float64
	tauPerFO4 float64
}

// propagate computes the arrival time of every net of d, a checked
// design, in its gates' (topological) order; the worst input pin decides
// each gate, ties going to the lowest input net number.
func propagate(d *netlist.Design, opt Options) (*netTiming, error) {
	cells := opt.cells()
	n := d.NumNets
	load := make([]float64, n)
	fanout := make([]int32, n)
	for _, g := range d.Gates {
		cin := cells[g.Kind].Cin
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
	addMemLoads(d, cells, load, fanout)
	if area := gateArea(d, cells); opt.Wire.netCap(1, area) > 0 {
		for net, f := range fanout {
			load[net] += opt.Wire.netCap(int(f), area)
		}
	}
	tauPerFO4 := opt.TauPerFO4()

	arr := make([]float64, n)
	src := make([]int32, n)
	pin := make([]int8, n)
	for i := range src {
		src[i], pin[i] = srcNone, -1
	}
	src[netlist.Const0], src[netlist.Const1] = srcConst, srcConst
	inv := &cells[netlist.INV]
	// The input driver is the unit inverter scaled by DriverSize: the
	// same parasitic, DriverSize times its input capacitance and drive.
	driver := Cell{G: []float64{inv.G[0]}, P: inv.P, Cin: []float64{inv.Cin[0] * opt.DriverSize}}
	if opt.Tech != nil && opt.Tech.InputP > 0 {
		driver.P = opt.Tech.InputP
	}
	if opt.slews() {
		driver.Slew = inv.Slew
		return propagateEdges(d, opt, &netTiming{cells: cells, load: load, fanout: fanout, arr: arr, src: src, pin: pin,
			driver: driver, tauPerFO4: tauPerFO4})
	}
	bufCount, bufSize := 0, 0.0 // inverters Sized mode inserts
	for _, p := range d.Inputs() {
		for _, b := range p.Bits {
			src[b] = srcInput
			var nb int
			var sz float64
			arr[b], nb, sz = opt.stage(&driver, 0, load[b])
			bufCount, bufSize = bufCount+nb, bufSize+sz
		}
	}
	dff := &cells[netlist.DFF]
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			src[g.Out] = int32(gi)
			var nb int
			var sz float64
			arr[g.Out], nb, sz = opt.stage(dff, 0, load[g.Out])
			bufCount, bufSize = bufCount+nb, bufSize+sz
		}
	}
	startMems(d, src, arr, tauPerFO4)
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			continue
		}
		c := &cells[g.Kind]
		best, bestPin := math.Inf(-1), -1
		for p, in := range g.In {
			if src[in] == srcNone {
				return nil, fmt.Errorf("timing: design %s: gate g%d (%s) reads %s before its driver: gates are not in topological order",
					d.Name, gi, g.Kind, d.NetName(in))
			}
			dl, _, _ := opt.stage(c, p, load[g.Out])
			t := arr[in] + dl
			if t > best || (t == best && in < g.In[bestPin]) {
				best, bestPin = t, p
			}
		}
		arr[g.Out], src[g.Out], pin[g.Out] = best, int32(gi), int8(bestPin)
		if opt.Mode == Sized {
			// The buffer tree depends on the load only, not the pin.
			_, nb, sz := opt.stage(c, bestPin, load[g.Out])
			bufCount, bufSize = bufCount+nb, bufSize+sz
		}
	}

	return &netTiming{cells: cells, load: load, fanout: fanout, arr: arr, src: src, pin: pin,
		driver: driver, bufCount: bufCount, bufSize: bufSize, tauPerFO4: tauPerFO4}, nil
}

// gateArea is the design's cell area in GE, before any buffering.
func gateArea(d *netlist.Design, cells *[netlist.NumKinds]Cell) float64 {
	a := 0.0
	for k, cnt := range d.Stats() {
		a += float64(cnt) * cells[k].Area
	}
	return a
}

// clockName names the clock in a report: the design's, or "clk".
func clockName(d *netlist.Design) string {
	if d.Clock == "" {
		return "clk"
	}
	return d.Clock
}

// round4 rounds to 4 decimals, half away from zero.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// String is a short human-readable report with the same (rounded) numbers
// as the JSON form.
func (r *Result) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: critical path %v FO4 (%v tau), %d levels, ends at %s\n", r.Design, r.FO4, r.Tau, r.Depth, r.Endpoint)
	fmt.Fprintf(&sb, "area %v GE, %d transistors, %d gates\n", r.AreaGE, r.Transistors, r.Gates)
	if len(r.Memories) > 0 {
		fmt.Fprintf(&sb, "memories: %d macros, %d bits, %v GE of the area\n", len(r.Memories), r.MemoryBits, r.MemoryAreaGE)
	}
	fmt.Fprintf(&sb, "  %-8s %-6s %-20s %-20s %6s %9s %9s %9s\n", "gate", "cell", "from", "net", "fanout", "load", "delay", "arrival")
	for _, s := range r.CriticalPath {
		fmt.Fprintf(&sb, "  %-8s %-6s %-20s %-20s %6d %9v %9v %9v\n", s.Gate, s.Cell, s.From, s.Net, s.Fanout, s.Load, s.Delay, s.Arrival)
	}
	return sb.String()
}
