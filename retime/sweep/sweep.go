// Package sweep is the clock sweep of lsugen timing (docs/clock-sweep.md):
// every combinational unit pipelined (package retime) at every period of
// a range, with its latency, flip-flops, area and worst stage. The points
// are computed in one process by a pool of workers (Run), or one at a
// time (Compute) from a job list of one shell command per point (Jobs,
// with the sweep's Manifest), and merged back from their result files
// (Merge). The caller loads and generates the units and hands over their
// designs: this package never reads a spec, and it writes no file (the
// command writes the bytes it returns).
package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
)

// Bounds of one sweep: its periods, its points (units times periods),
// and the files a merge reads, each refused past its limit while reading.
const (
	MaxPeriods       = 1000
	MaxPoints        = 1 << 16
	MaxManifestBytes = 16 << 20
	MaxPointBytes    = 1 << 20
)

// The statuses of a sweep point.
const (
	OK        = "ok"               // pipelined
	Clocked   = "clocked"          // the unit has a clock already: not swept
	TooShort  = "period_too_short" // no pipelining meets the period
	Failed    = "failed"           // pipelining or timing failed otherwise
	Missing   = "missing"          // merge: no result file
	Malformed = "malformed"        // merge: a result file that is not this point's
)

// ManifestFile is the manifest a job list's directory holds: the sweep's
// model, periods and units, from which Merge knows which points to
// expect.
const ManifestFile = "sweep.json"

// Unit is a unit of a sweep: its generated design (named as the unit)
// and its kind and variant as the report names them.
type Unit struct {
	Design  *netlist.Design
	Kind    string
	Variant string
}

// Model is the timing model of a sweep: what sets its cuts and measures
// its points. A result file computed under another model is not a point
// of the sweep.
type Model struct {
	// Mode is the sizing regime: "unsized" or "sized".
	Mode       string      `json:"mode"`
	DriverSize float64     `json:"driver_size"`
	OutputLoad float64     `json:"output_load"`
	Wire       timing.Wire `json:"wire"`
	// Tech names the characterized cell library (--liberty); "" for the
	// textbook gate table.
	Tech string `json:"tech,omitempty"`
	// SetupFO4 is the register setup time charged to every stage.
	SetupFO4 float64 `json:"setup_fo4"`
}

// ModelOf is the model of the timing options opt.
func ModelOf(opt timing.Options) Model {
	m := Model{Mode: string(opt.Mode), DriverSize: opt.DriverSize, OutputLoad: opt.OutputLoad, Wire: opt.Wire, SetupFO4: timing.SetupFO4}
	if m.Mode == "" {
		m.Mode = string(timing.Unsized)
	}
	if opt.Tech != nil {
		m.Tech = opt.Tech.Name
	}
	return m
}

// Point is one unit at one period.
type Point struct {
	Unit      string  `json:"unit"`
	Kind      string  `json:"kind"`
	Variant   string  `json:"variant"`
	PeriodFO4 float64 `json:"period_fo4"`
	// Status is ok, clocked, period_too_short, failed, or (from a merge)
	// missing or malformed; Reason says why a point is not ok.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// For an ok point: the latency L in cycles, the flip-flops (data,
	// output and valid registers), the pipelined unit's area in NAND2
	// equivalents (flip-flops included), each stage's delay with clock-to-Q
	// and setup, the worst of them, and the data registers at each
	// boundary between stages.
	LatencyCycles  int       `json:"latency_cycles,omitempty"`
	Registers      int       `json:"registers,omitempty"`
	AreaGE         float64   `json:"area_ge,omitempty"`
	WorstStageFO4  float64   `json:"worst_stage_fo4,omitempty"`
	StageFO4       []float64 `json:"stage_fo4,omitempty"`
	StageRegisters []int     `json:"stage_registers,omitempty"`
	// STA is OpenSTA's timing of the point's pipeline (--sta-liberty).
	STA *STA `json:"sta,omitempty"`
}

// Sweep is a whole sweep: its model, its periods and its points, unit by
// unit, period by period.
type Sweep struct {
	Model      Model     `json:"model"`
	PeriodsFO4 []float64 `json:"periods_fo4"`
	Points     []Point   `json:"points"`
}

// ParsePeriods reads LO:HI:STEP into the periods LO, LO+STEP, ... up to
// HI, in FO4, each from minFO4 to maxFO4.
func ParsePeriods(s string, minFO4, maxFO4 float64) ([]float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q: want LO:HI:STEP in FO4, e.g. 20:60:4", s)
	}
	var v [3]float64
	for i, name := range []string{"LO", "HI", "STEP"} {
		x, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%q: %s %q is not a positive finite number", s, name, parts[i])
		}
		v[i] = x
	}
	lo, hi, step := v[0], v[1], v[2]
	if lo < minFO4 || hi > maxFO4 {
		return nil, fmt.Errorf("%q: want periods from %g to %g FO4", s, minFO4, maxFO4)
	}
	if lo > hi {
		return nil, fmt.Errorf("%q: LO %g is above HI %g", s, lo, hi)
	}
	// A period within a billionth of a step of HI counts as HI: 0.1 steps
	// do not lose the last period to rounding.
	n := math.Floor((hi-lo)/step+1e-9) + 1
	if n > MaxPeriods {
		return nil, fmt.Errorf("%q: %.0f periods, more than %d: take a larger STEP", s, n, MaxPeriods)
	}
	out := make([]float64, int(n))
	for i := range out {
		p, _ := strconv.ParseFloat(strconv.FormatFloat(lo+float64(i)*step, 'f', 9, 64), 64)
		out[i] = p
	}
	return out, nil
}

// PointName is a point's name, UNIT@P, also its result file's name
// without .json.
func PointName(unit string, p float64) string {
	return unit + "@" + strconv.FormatFloat(p, 'g', -1, 64)
}

// ParsePointName reads UNIT@P, P a period from minFO4 to maxFO4.
func ParsePointName(s string, minFO4, maxFO4 float64) (string, float64, error) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return "", 0, fmt.Errorf("%q: want UNIT@P, a unit's name and a period in FO4 (e.g. coalesce_a2a_8@40)", s)
	}
	p, err := strconv.ParseFloat(s[i+1:], 64)
	if err != nil || !(p >= minFO4 && p <= maxFO4) {
		return "", 0, fmt.Errorf("%q: the period %q is not a number of FO4 from %g to %g", s, s[i+1:], minFO4, maxFO4)
	}
	return s[:i], p, nil
}

// Run computes every unit at every period, jobs points at once, in the
// order unit by unit, period by period, calling done (when not nil) as
// each point is finished, for a progress line. It stops early, with
// ctx's error, when ctx is cancelled.
func Run(ctx context.Context, us []Unit, periods []float64, opt timing.Options, jobs int, done func()) (*Sweep, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	pts := make([]Point, len(us)*len(periods))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(max(jobs, 1), len(pts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pts[i] = PointOf(us[i/len(periods)], periods[i%len(periods)], opt)
				if done != nil {
					done()
				}
			}
		}()
	}
feed:
	for i := range pts {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return &Sweep{Model: ModelOf(opt), PeriodsFO4: periods, Points: pts}, ctx.Err()
}

// PointOf pipelines u at period p and measures the result. A unit with a
// clock, a period too short and any other failure are points with their
// status and reason, never an abort.
func PointOf(u Unit, p float64, opt timing.Options) (pt Point) {
	d := u.Design
	pt = Point{Unit: d.Name, Kind: u.Kind, Variant: u.Variant, PeriodFO4: p}
	if d.Clock != "" {
		pt.Status, pt.Reason = Clocked, clockedReason(d.Clock)
		return pt
	}
	defer func() {
		if r := recover(); r != nil {
			pt = Point{Unit: pt.Unit, Kind: pt.Kind, Variant: pt.Variant, PeriodFO4: p, Status: Failed,
				Reason: fmt.Sprintf("internal error (please report it): %v", r)}
		}
	}()
	// The pipeliner of clock_fo4 (units.Pipeline), so that a point is the unit
	// clock_fo4 builds.
	r, err := retime.PipelineWords(d, retime.Options{PeriodFO4: p, Timing: opt})
	if err != nil {
		pt.Status, pt.Reason = Failed, err.Error()
		if errors.Is(err, retime.ErrPeriod) {
			pt.Status = TooShort
		}
		return pt
	}
	res, err := timing.Analyze(r.Design, opt)
	if err != nil {
		pt.Status, pt.Reason = Failed, err.Error()
		return pt
	}
	pt.Status = OK
	pt.LatencyCycles, pt.Registers, pt.AreaGE = r.Latency, r.Registers, res.AreaGE
	pt.StageFO4 = slices.Clone(r.StageFO4)
	if len(r.StageRegisters) > 0 { // nil as in the JSON
		pt.StageRegisters = slices.Clone(r.StageRegisters)
	}
	for _, f := range r.StageFO4 {
		pt.WorstStageFO4 = max(pt.WorstStageFO4, f)
	}
	return pt
}

func clockedReason(clock string) string {
	return fmt.Sprintf("the unit has a clock (%s) already: not pipelined", clock)
}

// Unfinished lists the points that failed or, from a merge, are missing
// or malformed, and says how many of each in err (nil when none).
func (s *Sweep) Unfinished() (bad []Point, err error) {
	counts := map[string]int{}
	for _, p := range s.Points {
		switch p.Status {
		case Failed, Missing, Malformed:
			bad = append(bad, p)
			counts[p.Status]++
		}
	}
	if len(bad) == 0 {
		return nil, nil
	}
	var what []string
	for _, st := range []string{Failed, Missing, Malformed} {
		if counts[st] > 0 {
			what = append(what, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return bad, fmt.Errorf("%d of %s not computed (%s)", len(bad), plot.Plural(len(s.Points), "point"), strings.Join(what, ", "))
}

// Digest is a SHA-256 of d's ports, gates and memories: a result file computed from
// another netlist is not a point of the sweep.
func Digest(d *netlist.Design) string {
	h := sha256.New()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	str := func(s string) {
		put(uint64(len(s)))
		io.WriteString(h, s)
	}
	str(d.Name)
	str(d.Clock)
	put(uint64(d.NumNets))
	for _, p := range d.Ports {
		str(p.Name)
		put(uint64(p.Dir))
		put(uint64(len(p.Bits)))
		for _, n := range p.Bits {
			put(uint64(n))
		}
	}
	put(uint64(len(d.Gates)))
	for _, g := range d.Gates {
		put(uint64(g.Kind))
		put(uint64(g.Out))
		put(uint64(len(g.In)))
		for _, n := range g.In {
			put(uint64(n))
		}
	}
	// Memories only where there are some, so that the digests of
	// designs without them stay what they were.
	for _, m := range d.Memories {
		str(m.Name)
		str(m.Module)
		put(uint64(m.Words))
		put(uint64(m.Width))
		for _, bus := range []netlist.Bus{{m.RE}, m.RAddr, m.RData, {m.WE}, m.WAddr, m.WData, m.WMask} {
			put(uint64(len(bus)))
			for _, n := range bus {
				put(uint64(n))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
