package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// defaultSVGClocks are the clock periods drawn when --clock is not given:
// those of 003_*'s cycle tables.
var defaultSVGClocks = []float64{40, 48, 56}

// timingSVG draws (a) FO4 against lanes of the coalescer and
// monotonicity-detector units, one series per structure (the detector
// one series), with the clock periods as horizontal lines, and (b) the
// critical path of one unit (focus, or the slowest) as a stacked bar of
// gate delays. Panel (a) is left out when the specs have no such units.
func timingSVG(us []unit, rep *timing.Report, opt timing.Options, clocks []float64, focus string) ([]byte, error) {
	if len(clocks) == 0 {
		clocks = defaultSVGClocks
	}
	mode := string(opt.Mode)
	if mode == "" {
		mode = string(timing.Unsized)
	}
	f := plot.NewFigure()
	series := laneSeries(us, rep)
	if len(series) > 0 {
		c := &plot.LineChart{
			Title:    "(a) Critical path of the coalescers and monotonicity detectors against lanes",
			Subtitle: fmt.Sprintf("%s (--timing-mode %s); dashed lines: clock periods", opt.Mode.Words(), mode),
			XLabel:   "lanes (log scale)",
			YLabel:   "critical path (FO4)",
			LogX:     true,
			Series:   series,
		}
		for _, p := range clocks {
			c.HLines = append(c.HLines, plot.Line{Value: p, Label: fmt.Sprintf("clock %g FO4", p)})
		}
		f.LineChart(c)
	}
	u, err := focusUnit(rep, focus)
	if err != nil {
		return nil, err
	}
	bar := pathBar(u, clocks, len(rep.Units) > 1 && focus == "", mode)
	if len(series) > 0 {
		bar.Title = "(b) " + bar.Title
	}
	f.Bar(bar)
	if err := f.Err(); err != nil {
		return nil, err
	}
	return f.SVG(), nil
}

// focusUnit is the named unit, or the slowest (the first of equals).
func focusUnit(rep *timing.Report, name string) (*timing.UnitReport, error) {
	if name != "" {
		var names []string
		for i := range rep.Units {
			if rep.Units[i].Name == name {
				return &rep.Units[i], nil
			}
			names = append(names, rep.Units[i].Name)
		}
		return nil, unknownUnit("--svg-unit", name, names)
	}
	best := &rep.Units[0]
	for i := range rep.Units {
		if rep.Units[i].FO4 > best.FO4 {
			best = &rep.Units[i]
		}
	}
	return best, nil
}

// pathBar is the critical path of u as segments of gate delay.
func pathBar(u *timing.UnitReport, clocks []float64, slowest bool, mode string) *plot.Bar {
	which := ""
	if slowest {
		which = "the slowest unit: "
	}
	b := &plot.Bar{
		Title:    fmt.Sprintf("Critical path of %s: %.2f FO4, %s", u.Name, u.FO4, plot.Plural(u.Depth, "gate level")),
		Subtitle: fmt.Sprintf("%s%s, %s; ends at %s; %s; dashed: clock periods shorter than the path", which, u.Kind, u.Variant, u.Endpoint, mode),
		Unit:     "FO4, stage delays in path order (hover a segment for its gate, nets and fanout)",
	}
	for _, s := range u.CriticalPath {
		key, lbl := s.Cell, s.Cell
		tip := fmt.Sprintf("%s %s: %s -> %s, fanout %d, delay %g FO4, arrival %g FO4", s.Gate, s.Cell, s.From, s.Net, s.Fanout, s.Delay, s.Arrival)
		if s.Gate == "input" {
			key, lbl = "input driver", "in"
			tip = fmt.Sprintf("input driver (INV) of %s, fanout %d, delay %g FO4", s.Net, s.Fanout, s.Delay)
		}
		b.Segments = append(b.Segments, plot.Segment{Width: s.Delay, Label: lbl, Key: key, Tip: tip})
	}
	for _, p := range clocks {
		b.Marks = append(b.Marks, plot.Line{Value: p, Label: fmt.Sprintf("%g", p)})
	}
	return b
}

// laneSeries groups the warp-wide units (those whose family places them
// on the lanes plot: coalescers and detectors) into series: one per
// series family (a coalescer structure, the detectors), split further by
// the attributes (subtractor, address bits, block bits) that differ within
// it, so that a series joins only units that differ in lanes.
func laneSeries(us []unit, rep *timing.Report) []plot.Series {
	type member struct {
		family string
		rank   int
		attrs  [3]string
		lanes  int
		name   string
		fo4    float64
	}
	fo4 := map[string]float64{}
	for _, u := range rep.Units {
		fo4[u.Name] = u.FO4
	}
	var ms []member
	for _, u := range us {
		if p, ok := units.LanePlot(u.Spec); ok {
			name := u.Spec.UnitName()
			ms = append(ms, member{p.Series, p.Rank, p.Attrs, p.Lanes, name, fo4[name]})
		}
	}
	// Which attributes vary within each family.
	varies := map[string][3]bool{}
	first := map[string][3]string{}
	for _, m := range ms {
		f, ok := first[m.family]
		if !ok {
			first[m.family] = m.attrs
			continue
		}
		v := varies[m.family]
		for i := range v {
			v[i] = v[i] || f[i] != m.attrs[i]
		}
		varies[m.family] = v
	}
	byName := map[string]*plot.Series{}
	var names []string
	rank := map[string]int{} // series name -> its family's place
	for _, m := range ms {
		var qual []string
		for i, a := range m.attrs {
			if varies[m.family][i] && a != "" {
				qual = append(qual, a)
			}
		}
		name := m.family
		if len(qual) > 0 {
			name += " (" + strings.Join(qual, ", ") + ")"
		}
		s, ok := byName[name]
		if !ok {
			s = &plot.Series{Name: name}
			byName[name] = s
			names = append(names, name)
			rank[name] = m.rank
		}
		s.Points = append(s.Points, plot.Point{X: float64(m.lanes), Y: m.fo4, Tip: fmt.Sprintf("%s: %s, %g FO4", m.name, plot.Plural(m.lanes, "lane"), m.fo4)})
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := rank[a] - rank[b]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	out := make([]plot.Series, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}
