package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/internal/inputfile"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify/sta"
)

// ManifestUnit is a unit of a sweep's manifest.
type ManifestUnit struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Variant string `json:"variant"`
	// Clock is the clock of a unit that has one (not swept).
	Clock string `json:"clock,omitempty"`
	// Design is a digest of the unit's generated netlist: a result file
	// computed from another netlist is not a point of this sweep.
	Design string `json:"design_sha256"`
}

// Manifest is the sweep.json of a job list's result directory.
type Manifest struct {
	Version    string         `json:"version"`
	Model      Model          `json:"model"`
	PeriodsFO4 []float64      `json:"periods_fo4"`
	Units      []ManifestUnit `json:"units"`
}

// PointResult is the result file of one point, NAME.json in the result
// directory (PointName).
type PointResult struct {
	Version string `json:"version"`
	Model   Model  `json:"model"`
	Design  string `json:"design_sha256"`
	Point
}

// STA is a point's pipeline timed by crosscheck-timing's flow: the worst
// stage (arrival plus the library's setup, in the library's measured FO4)
// and least slack at the period, in the timing-driven Yosys + ABC netlist
// and in lsugen's own gates in library cells.
type STA struct {
	Library             string  `json:"library"`
	PeriodPS            float64 `json:"period_ps"`
	TimingDrivenFO4     float64 `json:"timing_driven_worst_stage_fo4"`
	TimingDrivenSlackPS float64 `json:"timing_driven_slack_ps"`
	MappedFO4           float64 `json:"mapped_worst_stage_fo4"`
	MappedSlackPS       float64 `json:"mapped_slack_ps"`
	WithinPeriod        bool    `json:"within_period"`
}

// NewManifest is the manifest of a sweep of us at periods under opt,
// written by lsugen version.
func NewManifest(version string, opt timing.Options, periods []float64, us []Unit) *Manifest {
	m := &Manifest{Version: version, Model: ModelOf(opt), PeriodsFO4: periods}
	for _, u := range us {
		m.Units = append(m.Units, ManifestUnit{Name: u.Design.Name, Kind: u.Kind, Variant: u.Variant, Clock: u.Design.Clock, Design: Digest(u.Design)})
	}
	return m
}

// Jobs is the job list of the manifest m: one line per point of a unit
// without a clock, unit by unit, period by period, each the shell command
// that command returns for the point's name (PointName).
func (m *Manifest) Jobs(command func(point string) string) (list []byte, n int) {
	var b strings.Builder
	for _, u := range m.Units {
		if u.Clock != "" {
			continue
		}
		for _, p := range m.PeriodsFO4 {
			b.WriteString(command(PointName(u.Name, p)))
			b.WriteByte('\n')
			n++
		}
	}
	return []byte(b.String()), n
}

// PointFiles are the result files the points of m's job list write into
// dir, in the job list's order.
func (m *Manifest) PointFiles(dir string) []string {
	var out []string
	m.Jobs(func(point string) string {
		out = append(out, filepath.Join(dir, point+".json"))
		return ""
	})
	return out
}

// Compute is the result of one point: u pipelined at p under opt and,
// when lib names a liberty file, the pipeline timed by OpenSTA on it
// (a failure there makes the point failed).
func Compute(ctx context.Context, version string, u Unit, p float64, opt timing.Options, lib string) *PointResult {
	r := &PointResult{Version: version, Model: ModelOf(opt), Design: Digest(u.Design), Point: PointOf(u, p, opt)}
	if lib != "" && r.Status == OK {
		var err error
		if r.STA, err = STAPoint(ctx, u, p, opt, lib); err != nil {
			r.Status, r.Reason = Failed, "OpenSTA: "+err.Error()
		}
	}
	return r
}

// STAPoint pipelines u at p as the point did and times the pipeline with
// crosscheck-timing's flow and its defaults on the liberty lib.
func STAPoint(ctx context.Context, u Unit, p float64, opt timing.Options, lib string) (*STA, error) {
	r, err := retime.PipelineWords(u.Design, retime.Options{PeriodFO4: p, Timing: opt})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lsugen-sweep-sta-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rep, err := sta.Crosscheck(ctx, []sta.CrosscheckUnit{{Design: r.Design, Kind: u.Kind, Variant: u.Variant}},
		sta.CrosscheckOptions{
			Config: sta.Config{Liberty: lib, LoadFactor: sta.DefaultLoadFactor, WorkDir: dir, TargetPS: sta.DefaultTargetPS,
				FraigConflicts: sta.DefaultFraigConflicts, Timeout: 30 * time.Minute, Source: sta.SourceRTL},
			BandPct: sta.DefaultBandPct, Jobs: 1,
		}, nil)
	if err != nil {
		return nil, err
	}
	if len(rep.Units) != 1 || rep.Units[0].Pipeline == nil {
		return nil, fmt.Errorf("%s: no stage timing (skipped: %v)", u.Design.Name, rep.Skipped)
	}
	return worstStages(rep.Library, rep.Units[0].Pipeline), nil
}

// worstStages is the worst stage and least slack of a pipeline's stages
// in both flows.
func worstStages(lib string, pr *sta.PipelineReport) *STA {
	st := &STA{Library: lib, PeriodPS: pr.PeriodPS, WithinPeriod: true}
	for i, sr := range pr.Stages {
		if i == 0 || sr.TimingDriven.FO4 > st.TimingDrivenFO4 {
			st.TimingDrivenFO4 = sr.TimingDriven.FO4
		}
		if i == 0 || sr.TimingDriven.SlackPS < st.TimingDrivenSlackPS {
			st.TimingDrivenSlackPS = sr.TimingDriven.SlackPS
		}
		if i == 0 || sr.Mapped.FO4 > st.MappedFO4 {
			st.MappedFO4 = sr.Mapped.FO4
		}
		if i == 0 || sr.Mapped.SlackPS < st.MappedSlackPS {
			st.MappedSlackPS = sr.Mapped.SlackPS
		}
		st.WithinPeriod = st.WithinPeriod && sr.TimingDriven.WithinPeriod
	}
	return st
}

// ReadManifest reads and checks the manifest in dir: a regular file of at
// most MaxManifestBytes naming at most MaxPoints points. An absent
// manifest is an error that wraps fs.ErrNotExist.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	raw, err := inputfile.Read(path, MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := DecodeStrict(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: not a sweep manifest: %v", path, err)
	}
	if len(m.PeriodsFO4) == 0 || len(m.PeriodsFO4) > MaxPeriods || len(m.Units) == 0 {
		return nil, fmt.Errorf("%s: want 1 to %d periods and at least one unit", path, MaxPeriods)
	}
	if err := m.CheckSize(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, u := range m.Units {
		// A unit's name names its point files: nothing but an identifier.
		if !isIdent(u.Name) {
			return nil, fmt.Errorf("%s: units[%d]: name %s is not a unit name (letters, digits and _)", path, i, strconv.QuoteToASCII(u.Name))
		}
	}
	return &m, nil
}

// isIdent reports whether s is a Verilog identifier, as every unit name is.
func isIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// CheckSize refuses a sweep of more than MaxPoints points.
func (m *Manifest) CheckSize() error {
	if n := len(m.Units) * len(m.PeriodsFO4); n > MaxPoints {
		return fmt.Errorf("%d units at %d periods are %d points, more than the %d of one sweep: fewer units or periods", len(m.Units), len(m.PeriodsFO4), n, MaxPoints)
	}
	return nil
}

// Merge builds the sweep of the manifest m from the point results in
// dir, a point whose file is absent or not this point's made missing or
// malformed with the reason.
func (m *Manifest) Merge(dir string) *Sweep {
	s := &Sweep{Model: m.Model, PeriodsFO4: m.PeriodsFO4}
	for _, u := range m.Units {
		for _, p := range m.PeriodsFO4 {
			pt := Point{Unit: u.Name, Kind: u.Kind, Variant: u.Variant, PeriodFO4: p}
			if u.Clock != "" {
				pt.Status, pt.Reason = Clocked, clockedReason(u.Clock)
			} else {
				pt = m.readPoint(dir, u, pt)
			}
			s.Points = append(s.Points, pt)
		}
	}
	return s
}

// readPoint reads the result file of one expected point; a file that is
// absent, unreadable or not this point's (another unit, period, model,
// netlist or lsugen version) makes the point missing or malformed with
// the reason.
func (m *Manifest) readPoint(dir string, u ManifestUnit, want Point) Point {
	path := filepath.Join(dir, PointName(u.Name, want.PeriodFO4)+".json")
	bad := func(status, format string, args ...any) Point {
		want.Status, want.Reason = status, path+": "+fmt.Sprintf(format, args...)
		return want
	}
	raw, err := inputfile.Read(path, MaxPointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return bad(Missing, "no such file (the job did not run or did not finish)")
	}
	if err != nil {
		want.Status, want.Reason = Malformed, err.Error() // names the file
		return want
	}
	var doc PointResult
	if err := DecodeStrict(raw, &doc); err != nil {
		return bad(Malformed, "not a sweep point: %v", err)
	}
	got := doc.Point
	switch {
	case doc.Version != m.Version:
		return bad(Malformed, "written by lsugen %s, the sweep by %s", doc.Version, m.Version)
	case !reflect.DeepEqual(doc.Model, m.Model):
		return bad(Malformed, "computed under another timing model than the sweep's")
	case got.Unit != u.Name || got.PeriodFO4 != want.PeriodFO4:
		return bad(Malformed, "holds the point %s", PointName(got.Unit, got.PeriodFO4))
	case doc.Design != u.Design:
		return bad(Malformed, "computed from another netlist of %s (the spec changed since the job list was written?)", u.Name)
	}
	switch got.Status {
	case OK:
		if got.LatencyCycles < 1 || len(got.StageFO4) != got.LatencyCycles || got.Registers < 1 {
			return bad(Malformed, "an ok point needs latency_cycles >= 1, one stage_fo4 per cycle and registers")
		}
	case TooShort, Failed:
	default:
		return bad(Malformed, "status %q is not a computed point's", got.Status)
	}
	got.Kind, got.Variant = u.Kind, u.Variant
	return got
}

// DecodeStrict decodes one JSON document with no unknown fields.
func DecodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON document")
	}
	return nil
}
