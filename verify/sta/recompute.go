package sta

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// Recompute is a cross-check whose flow side comes from a previous run:
// prev is that run's report (`crosscheck-timing --json`); its measured FO4,
// tool versions and each unit's flow, mapped and target figures in ps are
// kept (converted to FO4 by the new characterization's FO4), and
// lsugen's estimates are computed anew with lib (the same liberty, read
// with the don't-use cells of Crosscheck left out) characterized afresh.
// A unit not in prev, or skipped there, is reported as skipped. It runs
// no tool, so a change of the model is measured in seconds, not in the
// minutes of synthesis; the flow figures are only as current as prev.
//
// The characterization must choose the cells prev's did (the mapped
// timings were made with them) and the driver and load must be prev's;
// otherwise Recompute fails.
func Recompute(units []CrosscheckUnit, prev *Report, lib *liberty.Library, bandPct float64) (*Report, error) {
	if prev.Library != lib.Name {
		return nil, fmt.Errorf("sta: the flow report is of library %s, not %s", prev.Library, lib.Name)
	}
	ch, err := liberty.Characterize(lib, liberty.Options{DontUse: DefaultDontUse})
	if err != nil {
		return nil, err
	}
	model := NewModelTech(ch)
	if model.NAND2Area, err = NAND2Area(ch, lib); err != nil {
		return nil, err
	}
	var differ []string
	for k, c := range model.Cells {
		if p, ok := prev.Model.Cells[k]; !ok || p != c {
			differ = append(differ, fmt.Sprintf("%s: %s, not %s", k, c, p))
		}
	}
	if len(differ) > 0 {
		sort.Strings(differ)
		return nil, fmt.Errorf("sta: the characterization chooses other cells than the flow report's run (%s): its mapped timings do not apply",
			strings.Join(differ, "; "))
	}
	r := &Report{
		Library: prev.Library, Liberty: prev.Liberty, Yosys: prev.Yosys, STA: prev.STA,
		Driver: prev.Driver, DriverCapFF: prev.DriverCapFF, OutputLoadFF: prev.OutputLoadFF,
		Source: prev.Source, RemovedCells: prev.RemovedCells, FraigConflicts: prev.FraigConflicts,
		FO4: prev.FO4, Model: model, BandPct: bandPct, FlowFrom: true, Seconds: prev.Seconds,
		Units: []UnitReport{}, Skipped: []Skipped{}, OutsideBand: []string{},
	}
	libOpt := timing.OptionsFor(ch.Tech)
	libOpt.DriverSize = prev.DriverCapFF / ch.RefCapFF
	libOpt.OutputLoad = prev.OutputLoadFF / ch.RefCapFF
	if !(libOpt.DriverSize > 0) || math.IsInf(libOpt.DriverSize, 0) {
		return nil, fmt.Errorf("sta: the flow report's driver capacitance %v fF is not positive", prev.DriverCapFF)
	}
	flows := map[string]UnitReport{}
	for _, u := range prev.Units {
		flows[u.Name] = u
	}
	prevSkip := map[string]string{}
	for _, s := range prev.Skipped {
		prevSkip[s.Name] = s.Reason
	}
	for _, u := range units {
		d := u.Design
		if u.Skip != "" {
			r.Skipped = append(r.Skipped, Skipped{Name: d.Name, Gates: len(d.Gates), Reason: u.Skip})
			continue
		}
		f, ok := flows[d.Name]
		if !ok {
			reason := "not in the flow report"
			if s, ok := prevSkip[d.Name]; ok {
				reason = "skipped in the flow report's run: " + s
			}
			r.Skipped = append(r.Skipped, Skipped{Name: d.Name, Gates: len(d.Gates), Reason: reason})
			continue
		}
		// The mapped area needs no tool: computed anew, as prev's run may
		// not have reported it.
		area, cells, err := MappedArea(d, ch, lib)
		if err != nil {
			return nil, err
		}
		lib, textbook, fixed, err := estimates(u, libOpt)
		if err != nil {
			return nil, err
		}
		ur := f
		ur.Kind, ur.Variant, ur.Gates = u.Kind, u.Variant, len(d.Gates)
		ur.Mapped.Area, ur.Mapped.Cells = round(area, 2), cells
		// prev's flow delays in ps, converted anew: prev may have
		// converted by another FO4 figure.
		fo4 := r.FO4PS()
		for _, fr := range []*FlowReport{&ur.Plain, &ur.TimingDriven, &ur.Mapped} {
			fr.FO4 = round(fr.DelayPS/fo4, 2)
		}
		r.setEstimates(&ur, ur.Mapped.DelayPS, ur.Plain.DelayPS, ur.TimingDriven.DelayPS, lib, textbook, fixed)
		if ur.Pipeline != nil {
			// The stages' OpenSTA figures are prev's, the model's new.
			if !staged(d) {
				return nil, fmt.Errorf("sta: %s: the flow report has stages, the unit is not a fixed-latency pipeline", d.Name)
			}
			p := *ur.Pipeline
			p.Stages = append([]StageReport(nil), p.Stages...)
			for i := range p.Stages {
				for _, st := range []*StageTiming{&p.Stages[i].Mapped, &p.Stages[i].TimingDriven} {
					if st.Endpoints > 0 {
						st.FO4 = round((st.ArrivalPS+st.SetupPS)/fo4, 2)
					}
				}
			}
			if err := setStageModels(&p, d, libOpt, r.FO4PS()); err != nil {
				return nil, err
			}
			ur.Pipeline = &p
		}
		r.Units = append(r.Units, ur)
	}
	return r, nil
}
