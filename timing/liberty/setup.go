package liberty

import (
	"fmt"
	"strings"
)

// Constraint is a setup_rising timing group of an input pin: the setup
// time before the rising clock edge, for a rising and a falling data
// input, indexed by the clock's transition (Table.Slew) and the data
// pin's (Table.Load holds the constrained pin's transition here).
type Constraint struct {
	RelatedPin string
	Rise, Fall *Table
	Err        error
}

// setupArc reads pin group pg's setup_rising timing group; nil when it
// has none.
func setupArc(pg *Group, templates map[string]*Group) *Constraint {
	for _, tg := range pg.Subs {
		if tg.Type != "timing" || strings.Trim(tg.Attrs["timing_type"], `"`) != "setup_rising" {
			continue
		}
		c := &Constraint{RelatedPin: strings.Trim(tg.Attrs["related_pin"], `"`)}
		c.Err = readTables(tg, templates, constraintTable, map[string]**Table{"rise_constraint": &c.Rise, "fall_constraint": &c.Fall})
		return c
	}
	return nil
}

// constraintTable reads a constraint table into (clock transition, data
// transition) order, whatever order its template gives them; a missing
// index has one entry.
func constraintTable(g *Group, templates map[string]*Group) (*Table, error) {
	i1, i2, rows, v1, _, err := tableParts(g, templates)
	if err != nil {
		return nil, err
	}
	if len(i1) == 0 {
		i1 = []float64{0}
	}
	if len(i2) == 0 {
		i2 = []float64{0}
	}
	// One row of values for a one-index table.
	if len(rows) == 1 && len(i2) == 1 && len(rows[0]) == len(i1) && len(i1) > 1 {
		col := make([][]float64, len(i1))
		for i, x := range rows[0] {
			col[i] = []float64{x}
		}
		rows = col
	}
	if len(rows) != len(i1) {
		return nil, fmt.Errorf("%d rows for %d index_1 points", len(rows), len(i1))
	}
	for _, r := range rows {
		if len(r) != len(i2) {
			return nil, fmt.Errorf("a row of %d values for %d index_2 points", len(r), len(i2))
		}
	}
	if v1 == "constrained_pin_transition" {
		tr := make([][]float64, len(i2))
		for j := range i2 {
			tr[j] = make([]float64, len(i1))
			for i := range i1 {
				tr[j][i] = rows[i][j]
			}
		}
		return &Table{Slew: i2, Load: i1, Values: tr}, nil
	}
	return &Table{Slew: i1, Load: i2, Values: rows}, nil
}

// SetupPS is the setup time in ps of flip-flop cell c's data pin d, with
// clock and data transitions clockSlew and dataSlew (library units): the
// mean of the rising and falling data's constraints, as the FO4 figures
// average rise and fall.
func (l *Library) SetupPS(c *Cell, d string, clockSlew, dataSlew float64) (float64, error) {
	for _, p := range c.Inputs {
		if p.Name != d {
			continue
		}
		s := p.Setup
		switch {
		case s == nil:
			return 0, fmt.Errorf("cell %s: pin %s has no setup_rising constraint", clipName(c.Name), clipName(d))
		case s.Err != nil:
			return 0, fmt.Errorf("cell %s: pin %s's setup: %w", clipName(c.Name), clipName(d), s.Err)
		case s.Rise == nil && s.Fall == nil:
			return 0, fmt.Errorf("cell %s: pin %s's setup has no constraint table", clipName(c.Name), clipName(d))
		}
		sum, n := 0.0, 0
		for _, t := range []*Table{s.Rise, s.Fall} {
			if t != nil {
				sum += t.At(clockSlew, dataSlew)
				n++
			}
		}
		return sum / float64(n) * l.TimeUnitPS, nil
	}
	return 0, fmt.Errorf("cell %s has no pin %s", clipName(c.Name), clipName(d))
}
