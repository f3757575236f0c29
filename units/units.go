// Package units is lsugen's table of unit families. A family is one HCL
// block kind that describes hardware (hash, coalescer, ...); its row says
// everything the tool does with such a unit: the generator, the
// behavioural model that checks it, the directed vectors or stimulus that
// exercise it, and where it appears on the timing figure. The spec loader
// (package specs) declares the block's arguments and decoder beside its
// documentation; a test here fails when a family lacks a part or when the
// loader and this table disagree, so no unit kind can be decoded and then
// silently skipped.
//
// Adding a family: docs/adding-a-unit-family.md.
package units

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

// Family is one row of the table, with the unit type erased; rows are
// written with row[T], which checks the types at compile time.
type Family struct {
	Kind    string // the HCL block type, as specs.BlockKinds lists it
	Summary string // one line for listings and the spec reference
	Source  string // the paper the family comes from (see docs/sources.md)

	Generate func(specs.Unit) (*netlist.Design, hcl.Diagnostics)
	// Size estimates from the spec alone, without generating, the gates
	// and Verilog bytes Generate makes: an upper bound (size.go).
	Size func(specs.Unit) Size

	// A combinational unit is checked with Model and Directed; a clocked
	// one (synchronous reset rst) with Sequential and Stimulus. A family
	// whose members can be either (a hash with a configuration register,
	// a serializing bank arbiter) has both pairs: the generated design's
	// clock decides which one checks a unit.
	Model      func(specs.Unit) (model.Model, error)
	Directed   func(specs.Unit) verify.DirectedFunc
	Sequential func(specs.Unit) (model.Sequential, error)
	Stimulus   func(specs.Unit) verify.StimulusFunc

	// LanePlot places a unit on the timing figure's FO4-against-lanes
	// plot; ok is false for families that are not warp-wide.
	LanePlot func(specs.Unit) (p LanePoint, ok bool)

	// Compose builds a unit at a clock from its parts (package compose)
	// where that is what the unit is, not its combinational design cut
	// into stages: ok is false for a unit it leaves to retime. Nil for
	// families that are always cut.
	Compose func(specs.Unit, retime.Options) (b Built, ok bool, err error)
}

// LanePoint is a unit's place on the FO4-against-lanes plot.
type LanePoint struct {
	Series string // the curve's family, e.g. "all_to_all" or "detector"
	Rank   int    // the series' place in the legend
	// Attrs are what else can tell two units of one series apart
	// (subtractor, address bits, block bits; "" where not applicable): the
	// figure splits a series by those that differ.
	Attrs [3]string
	Lanes int
}

// row is a family written against its spec type T; family erases T.
type row[T specs.Unit] struct {
	kind, summary, source string
	generate              func(T) (*netlist.Design, hcl.Diagnostics)
	size                  func(T) Size
	model                 func(T) (model.Model, error)
	directed              func(T) verify.DirectedFunc
	sequential            func(T) (model.Sequential, error)
	stimulus              func(T) verify.StimulusFunc
	lanePlot              func(T) (LanePoint, bool)
	compose               func(T, retime.Options) (Built, bool, error)
}

// family erases the row's type. A part the row leaves nil stays nil, so
// the completeness test sees it.
func (r row[T]) family() Family {
	f := Family{Kind: r.kind, Summary: r.summary, Source: r.source}
	if r.generate != nil {
		f.Generate = func(u specs.Unit) (*netlist.Design, hcl.Diagnostics) {
			t, diags := as[T](u, r.kind)
			if diags.HasErrors() {
				return nil, diags
			}
			return r.generate(t)
		}
	}
	if r.size != nil {
		f.Size = func(u specs.Unit) Size {
			if t, diags := as[T](u, r.kind); !diags.HasErrors() {
				return r.size(t)
			}
			return Size{}
		}
	}
	f.Model = erase(r.kind, r.model)
	f.Sequential = erase(r.kind, r.sequential)
	if r.directed != nil {
		f.Directed = func(u specs.Unit) verify.DirectedFunc {
			if t, diags := as[T](u, r.kind); !diags.HasErrors() {
				return r.directed(t)
			}
			return nil
		}
	}
	if r.stimulus != nil {
		f.Stimulus = func(u specs.Unit) verify.StimulusFunc {
			t, diags := as[T](u, r.kind)
			if diags.HasErrors() {
				return func([]model.Port, uint64) (verify.Stimulus, error) { return nil, diags }
			}
			return r.stimulus(t)
		}
	}
	if r.lanePlot != nil {
		f.LanePlot = func(u specs.Unit) (LanePoint, bool) {
			if t, diags := as[T](u, r.kind); !diags.HasErrors() {
				return r.lanePlot(t)
			}
			return LanePoint{}, false
		}
	}
	if r.compose != nil {
		f.Compose = func(u specs.Unit, opt retime.Options) (Built, bool, error) {
			t, diags := as[T](u, r.kind)
			if diags.HasErrors() {
				return Built{}, false, diags
			}
			return r.compose(t, opt)
		}
	}
	return f
}

// erase wraps a typed model constructor; nil stays nil.
func erase[T specs.Unit, M any](kind string, fn func(T) (M, error)) func(specs.Unit) (M, error) {
	if fn == nil {
		return nil
	}
	return func(u specs.Unit) (M, error) {
		t, diags := as[T](u, kind)
		if diags.HasErrors() {
			var zero M
			return zero, diags
		}
		return fn(t)
	}
}

// as converts u to the row's spec type.
func as[T specs.Unit](u specs.Unit, kind string) (T, hcl.Diagnostics) {
	t, ok := u.(T)
	if !ok || u == nil {
		var zero T
		return zero, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unit of the wrong type",
			Detail:   fmt.Sprintf("The %s family was given a %T; please report this bug.", kind, u),
		}}
	}
	return t, nil
}

// byKind indexes the table.
var byKind = func() map[string]*Family {
	m := map[string]*Family{}
	for i := range table {
		m[table[i].Kind] = &table[i]
	}
	return m
}()

// Families returns the table in documentation order (the order of
// specs.BlockKinds).
func Families() []Family { return append([]Family(nil), table...) }

// Kinds returns the families' block kinds, sorted.
func Kinds() []string {
	var out []string
	for _, f := range table {
		out = append(out, f.Kind)
	}
	sort.Strings(out)
	return out
}

// For returns the family of u, or a diagnostic at the unit's block when
// lsugen has none for its kind.
func For(u specs.Unit) (*Family, hcl.Diagnostics) {
	if u == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No unit", Detail: "A nil unit was given to the family table; please report this bug."}}
	}
	if f := byKind[u.UnitKind()]; f != nil {
		return f, nil
	}
	return nil, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Unsupported unit kind",
		Detail:   fmt.Sprintf("lsugen decodes %s blocks but has no unit family for them: no generator, model or vectors.", u.UnitKind()),
		Subject:  u.DeclRange().Ptr(),
	}}
}

// Built is a generated unit: its design and, beside it, what its
// composer measured that the design's IR does not say.
type Built struct {
	Design *netlist.Design
	// Variable is set for a variable-latency unit (the speculative
	// coalescer at a clock, package compose): its fast answers' latency
	// and its slowest stage. Nil for every other unit.
	Variable *compose.Timing
}

// Build builds any unit: its family's generator, then, for a unit with
// a clock, the pipeline (clocked.go), in the textbook model (no library;
// a clock in time units in the default library's FO4, package flow).
func Build(u specs.Unit) (Built, hcl.Diagnostics) { return BuildIn(u, nil) }

// BuildIn is Build in library tech (nil: none), the model of timing_mode
// "liberty". Package flow converts a clock in time units with the run's
// library before it builds; one it has not converted is in the default
// library's FO4.
func BuildIn(u specs.Unit, tech *timing.Tech) (Built, hcl.Diagnostics) {
	b, diags := Unpipelined(u, tech)
	if c, ok := PipelinedAt(u); ok && b.Design != nil && !diags.HasErrors() {
		return Pipeline(u, b.Design, c, tech, diags)
	}
	return b, diags
}

// PipelinedAt is the clocking at which BuildIn pipelines unit u (its
// clock_fo4 or clock), and whether it does. Unpipelined first: it
// converts a clock in time units.
func PipelinedAt(u specs.Unit) (specs.Clocking, bool) {
	p, ok := u.(specs.Pipelinable)
	if !ok || p.Clock().ClockFO4 <= 0 {
		return specs.Clocking{}, false
	}
	return p.Clock(), true
}

// Unpipelined is BuildIn up to the pipelining that a clock_fo4 asks for
// (PipelinedAt): the family's design, and a shared memory checked at its
// clock. Package flow pipelines after it, once the run's pipelinings are
// estimated against its work budget.
func Unpipelined(u specs.Unit, tech *timing.Tech) (Built, hcl.Diagnostics) {
	f, diags := For(u)
	if diags.HasErrors() {
		return Built{}, diags
	}
	// A clock in time units that no run's library converted (package flow
	// does) is in the default library's FO4.
	if c, ok := u.(specs.Clocked); ok && c.Clocks().PeriodPS > 0 && c.Clocks().ClockFO4 == 0 {
		cl := c.Clocks()
		fo4 := cl.PeriodPS / timing.DefaultLibraryFO4PS
		if !(fo4 >= specs.MinClockFO4 && fo4 <= specs.MaxClockFO4) {
			return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid clock",
				Detail: fmt.Sprintf("clock %s is %.4g FO4 in the default library %s (FO4 = %.2f ps), outside %d to %d FO4.",
					specs.FormatPS(cl.PeriodPS), fo4, timing.DefaultLibraryName, timing.DefaultLibraryFO4PS, specs.MinClockFO4, specs.MaxClockFO4),
				Subject: cl.Range.Ptr()})
		}
		cl.ClockFO4 = fo4
	}
	d, diags := f.Generate(u)
	if diags.HasErrors() || d == nil {
		return Built{Design: d}, diags
	}
	if m, ok := u.(*specs.SharedMemory); ok {
		return sharedMemoryAtClock(m, d, tech, diags)
	}
	return Built{Design: d}, diags
}

// Generate is Build's design, for callers that need nothing beside it
// (Job and Golden take the whole Built).
func Generate(u specs.Unit) (*netlist.Design, hcl.Diagnostics) {
	b, diags := Build(u)
	return b.Design, diags
}

// Job returns the verification job of unit u built as b: its
// behavioural model and its directed vectors or stimulus. The caller adds
// the HDL sources, modules and work directory.
func Job(u specs.Unit, b Built) (verify.Job, error) {
	f, diags := For(u)
	if diags.HasErrors() {
		return verify.Job{}, diags
	}
	d := b.Design
	job := verify.Job{Design: d, Version: "lsugen " + gen.Version}
	var err error
	switch clocked := d != nil && d.Clock != ""; {
	case d != nil && d.Pipeline != nil && f.Model != nil:
		job.Seq, job.Stimulus, err = pipelinedJob(f, u, b)
	case clocked && f.Sequential != nil:
		job.Seq, err = f.Sequential(u)
		job.Stimulus = f.Stimulus(u)
	case !clocked && f.Model != nil:
		job.Model, err = f.Model(u)
		job.Directed = f.Directed(u)
	case clocked:
		err = fmt.Errorf("the %s family has no sequential model for a clocked unit", f.Kind)
	default:
		err = fmt.Errorf("the %s family has no combinational model for a unit without a clock", f.Kind)
	}
	if err != nil {
		return verify.Job{}, fmt.Errorf("%s: no behavioural model: %w", u.UnitName(), err)
	}
	return job, nil
}

// LanePlot places u on the FO4-against-lanes plot, if its family is
// warp-wide.
func LanePlot(u specs.Unit) (LanePoint, bool) {
	f, diags := For(u)
	if diags.HasErrors() {
		return LanePoint{}, false
	}
	return f.LanePlot(u)
}

// noDirected is the Directed part of a family whose inputs random and
// exhaustive vectors already cover (say why in the row).
func noDirected[T specs.Unit](T) verify.DirectedFunc { return nil }

// notWarpWide is the LanePlot part of a family that has no lanes.
func notWarpWide[T specs.Unit](T) (LanePoint, bool) { return LanePoint{}, false }

// Golden computes the golden vectors of unit u built as b (what `gen
// --tb` writes and `verify --rtl` runs): its model's outputs on its
// directed and planned vectors, or on its stimulus.
func Golden(u specs.Unit, b Built) (*verify.GoldenSet, error) {
	job, err := Job(u, b)
	if err != nil {
		return nil, err
	}
	return verify.Golden(job)
}

// GoldenDrawn is Golden with vectors drawn with seed beside the golden
// ones (verify.GoldenDrawn).
func GoldenDrawn(u specs.Unit, b Built, seed uint64) (*verify.GoldenSet, error) {
	job, err := Job(u, b)
	if err != nil {
		return nil, err
	}
	return verify.GoldenDrawn(job, seed)
}
