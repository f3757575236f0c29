// Package flow is one lsugen session as a library: load the spec files,
// check the run's budget, generate every unit through the family table
// (units), apply a clock override and resolve the units they
// instantiate. The command, the benchmarks and the tests share it; flow
// prints nothing and writes no file: it returns the designs with their
// diagnostics and the loader that renders them.
package flow

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

// Unit is one generated unit with the spec it came from: its design
// and what its composer measured beside it (units.Built).
type Unit struct {
	Spec specs.Unit
	units.Built
}

// Source is "file:line" of the unit's declaration.
func (u Unit) Source() string { return Source(u.Spec) }

// Source is "file:line" of a unit's declaration.
func Source(u specs.Unit) string {
	r := u.DeclRange()
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}

// Session is the outcome of one Load: the generated units and every
// diagnostic of the loader and the generators, in order.
type Session struct {
	Paths []string
	// Loader holds the parsed files, for rendering Diags with their
	// source snippets (Loader.Files).
	Loader *specs.Loader
	// Diags are the loader's and the generators' diagnostics: warnings
	// only when Load returned no error.
	Diags hcl.Diagnostics
	// Units are the generated units in spec order; empty when Load
	// returned an error, so that no caller starts work on a partly valid
	// input.
	Units []Unit
	// Library is the run's cell library (Options.Library, or the one
	// read from Options.LibraryPath); nil for none.
	Library *Library
}

var (
	// ErrNoSpecs: Load was given no spec files (a usage error).
	ErrNoSpecs = errors.New("no spec files given")
	// ErrNoUnits: the files are valid but declare no unit.
	ErrNoUnits = errors.New("the spec files declare no units")
	// ErrInvalid: a spec is unreadable or invalid, or a generator refused
	// a unit; the reasons are the session's Diags.
	ErrInvalid = errors.New("the specs have errors")
)

// NoUnitError: Options.Unit names no unit of the specs.
type NoUnitError struct {
	Name  string
	Units []string // the units the specs declare, in order
}

func (e *NoUnitError) Error() string {
	if s := specs.Closest(e.Name, e.Units); s != "" {
		return fmt.Sprintf("no unit %s in the specs. Did you mean %q?", e.Name, s)
	}
	return fmt.Sprintf("no unit %s in the specs", e.Name)
}

// Load loads the spec files together and generates every unit (only
// Options.Unit when set). The budget (Options.Check) is checked before any
// unit is generated. On error the session, when not nil, still carries
// the loader and the diagnostics to render (warnings before a budget
// error, errors with ErrInvalid), and no units.
func Load(paths []string, o Options) (*Session, error) {
	if len(paths) == 0 {
		return nil, ErrNoSpecs
	}
	s := &Session{Paths: paths, Loader: specs.NewLoader()}
	file, diags := s.Loader.Load(paths...)
	s.Diags = diags
	if diags.HasErrors() {
		return s, ErrInvalid
	}
	all, err := specs.SelectUnits(file.Units, o.Units)
	if err != nil {
		return s, err
	}
	if o.Unit != "" {
		one, err := pick(all, o.Unit)
		if err != nil {
			return s, err
		}
		all = []specs.Unit{one}
	}
	if err := o.Check(all); err != nil {
		return s, err
	}
	if o.Library == nil && o.LibraryPath != "" {
		lib, err := LoadLibrary(o.LibraryPath)
		if err != nil {
			return s, err
		}
		o.Library = lib
	}
	s.Library = o.Library
	clock := o.Clock
	if !s.resolveClocks(all, &clock, o.Library) {
		return s, ErrInvalid
	}
	units, err := s.generate(file.Units, all, clock, o.Library, o.Pipelining)
	if err != nil {
		return s, err
	}
	if s.Diags.HasErrors() {
		return s, ErrInvalid
	}
	if len(units) == 0 {
		return s, ErrNoUnits
	}
	s.Units = units
	return s, nil
}

// pick is the unit named name.
func pick(us []specs.Unit, name string) (specs.Unit, error) {
	var names []string
	for _, u := range us {
		if u.UnitName() == name {
			return u, nil
		}
		names = append(names, u.UnitName())
	}
	return nil, &NoUnitError{Name: name, Units: names}
}

// generate generates the units gen of the loaded units all, appending
// their diagnostics. Each unit's clock is first completed in library lib
// (resolveClock). A clock override pipelines every combinational unit
// but one that others instantiate: they place it under its own module
// name. Every unit is generated before any is pipelined, so that the
// run's pipelinings are estimated, and refused or counted, by
// onPipelining (Options.Pipelining) before the first.
func (s *Session) generate(all, gen []specs.Unit, clock specs.Clocking, lib *Library, onPipelining func(PipelineWork) (func(), error)) ([]Unit, error) {
	used := map[string]bool{}
	for _, su := range all {
		for _, r := range specs.References(su) {
			used[r.Name] = true
		}
	}
	tech := lib.tech()
	built := make([]units.Built, len(gen))
	diags := make([]hcl.Diagnostics, len(gen))
	designs := make([]*netlist.Design, len(gen))
	names := make([]string, len(gen))
	var todo []pipelining
	for i, su := range gen {
		built[i], diags[i] = units.Unpipelined(su, tech)
		d := built[i].Design
		designs[i], names[i] = d, su.UnitName()
		if d == nil || diags[i].HasErrors() {
			continue
		}
		if c, ok := units.PipelinedAt(su); ok {
			todo = append(todo, pipelining{index: i, clock: c})
		} else if clock.ClockFO4 > 0 && d.Clock == "" && !used[su.UnitName()] {
			todo = append(todo, pipelining{index: i, clock: clock})
		}
	}
	step := func() {}
	if onPipelining != nil {
		work := estimatePipelinings(todo, designs, names, tech)
		next, err := onPipelining(work)
		if err != nil {
			for _, gd := range diags {
				s.Diags = append(s.Diags, gd...)
			}
			return nil, err
		}
		if next != nil {
			step = next
		}
	}
	for _, p := range todo {
		built[p.index], diags[p.index] = units.Pipeline(gen[p.index], designs[p.index], p.clock, tech, diags[p.index])
		// The combinational design is garbage now, as it was when each
		// unit was pipelined as soon as generated: the peak stays that of
		// the pipelined designs.
		designs[p.index] = nil
		step()
	}
	var out []Unit
	for i, su := range gen {
		b, gd := built[i], diags[i]
		if lib != nil && b.Design != nil && !gd.HasErrors() {
			gd = append(gd, missesInLibrary(su, b.Design, lib)...)
		}
		s.Diags = append(s.Diags, gd...)
		if b.Design != nil {
			out = append(out, Unit{Spec: su, Built: b})
		}
	}
	return out, nil
}

// resolveClocks completes the clock override and every clock of the
// units us in library lib (resolveClock), appending the errors; it
// reports whether there were none.
func (s *Session) resolveClocks(us []specs.Unit, clock *specs.Clocking, lib *Library) bool {
	ok := true
	if clock.ClockFO4 > 0 || clock.PeriodPS > 0 {
		if clock.TimingMode == "" {
			clock.ModeDefaulted = true
		}
		if d := resolveClock(clock, lib, "--clock"); d != nil {
			s.Diags = append(s.Diags, d)
			ok = false
		}
	}
	for _, su := range us {
		if c, isClocked := su.(specs.Clocked); isClocked {
			if d := resolveClock(c.Clocks(), lib, "clock"); d != nil {
				s.Diags = append(s.Diags, d)
				ok = false
			}
		}
	}
	return ok
}

// WithSubunits is the session's units followed by the units they
// instantiate (WithSubunits): every unit whose Verilog a run writes.
func (s *Session) WithSubunits() []Unit { return WithSubunits(s.Units) }

// WithSubunits returns us followed by every unit they instantiate (a bank
// arbiter's hash) that is not among them, each once: their Verilog files
// go beside the units'.
func WithSubunits(us []Unit) []Unit {
	seen := map[string]bool{}
	for _, u := range us {
		seen[u.Design.Name] = true
	}
	out := append([]Unit(nil), us...)
	var walk func(u Unit)
	walk = func(u Unit) {
		subs := map[string]*netlist.Design{}
		for _, d := range u.Design.Submodules() {
			subs[d.Name] = d
		}
		for _, ref := range specs.References(u.Spec) {
			d := subs[ref.Name]
			if d == nil || ref.Unit == nil || seen[ref.Name] {
				continue
			}
			seen[ref.Name] = true
			sub := Unit{Spec: ref.Unit, Built: units.Built{Design: d}}
			out = append(out, sub)
			walk(sub)
		}
	}
	for _, u := range us {
		walk(u)
	}
	return out
}

// Select is the units of us that match any of the glob patterns
// (path.Match on the unit's name), in their order; all of us when there
// are no patterns. A bad pattern, or one that matches no unit, is an error
// that suggests the nearest name and lists the units
// (specs.MatchNames, as Options.Units).
func Select(us []Unit, patterns []string) ([]Unit, error) {
	if len(patterns) == 0 {
		return us, nil
	}
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.Design.Name
	}
	picked, err := specs.MatchNames(names, patterns)
	if err != nil {
		return nil, err
	}
	var sel []Unit
	for i, u := range us {
		if picked[i] {
			sel = append(sel, u)
		}
	}
	return sel, nil
}

// Names lists the units' names, comma-separated.
func Names(us []Unit) string {
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.Design.Name
	}
	return strings.Join(names, ", ")
}
