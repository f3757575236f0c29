package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/internal/termtext"
	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
)

// statusWords is a status as the table prints it.
var statusWords = map[string]string{
	Clocked:   "clocked: not swept",
	TooShort:  "period too short",
	Failed:    "FAILED",
	Missing:   "MISSING",
	Malformed: "MALFORMED",
}

// Words says what a point came to, in one line.
func (p Point) Words() string {
	if p.Status != OK {
		return statusWords[p.Status] + ": " + OneLine(p.Reason)
	}
	w := fmt.Sprintf("%s, %s, %.1f GE, worst stage %.2f FO4", plot.Plural(p.LatencyCycles, "cycle"), plot.Plural(p.Registers, "flip-flop"), p.AreaGE, p.WorstStageFO4)
	if p.STA != nil {
		w += fmt.Sprintf("; OpenSTA (%s, timing-driven flow): worst stage %.2f FO4, slack %.0f ps", OneLine(p.STA.Library), p.STA.TimingDrivenFO4, p.STA.TimingDrivenSlackPS)
	}
	return w
}

// OneLine keeps a reason on its table row, escaped for the terminal: a
// reason may quote a point file or manifest.
func OneLine(s string) string { return termtext.Escape(strings.Join(strings.Fields(s), " ")) }

// WriteTable prints the sweep unit by unit, period by period; a clocked
// unit is one row.
func (s *Sweep) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "clock sweep (%s): %s from %g to %g FO4, setup %g FO4 in each stage\n", timing.Mode(s.Model.Mode).Words(),
		plot.Plural(len(s.PeriodsFO4), "period"), first(s.PeriodsFO4), last(s.PeriodsFO4), s.Model.SetupFO4)
	if s.Model.Tech != "" {
		fmt.Fprintf(w, "cell library: %s\n", OneLine(s.Model.Tech))
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "unit\tkind\tperiod FO4\tcycles\tflip-flops\tarea GE\tworst stage FO4\tnote")
	for i := 0; i < len(s.Points); i++ {
		p := s.Points[i]
		if p.Status == Clocked {
			for i+1 < len(s.Points) && s.Points[i+1].Unit == p.Unit && s.Points[i+1].Status == Clocked {
				i++
			}
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t%s\n", OneLine(p.Unit), OneLine(p.Kind), statusWords[p.Status])
			continue
		}
		if p.Status != OK {
			fmt.Fprintf(tw, "%s\t%s\t%g\t-\t-\t-\t-\t%s: %s\n", OneLine(p.Unit), OneLine(p.Kind), p.PeriodFO4, statusWords[p.Status], shortReason(p))
			continue
		}
		note := ""
		if p.STA != nil {
			note = fmt.Sprintf("OpenSTA, timing-driven flow: worst stage %.2f FO4, slack %.0f ps", p.STA.TimingDrivenFO4, p.STA.TimingDrivenSlackPS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%d\t%.1f\t%.2f\t%s\n", OneLine(p.Unit), OneLine(p.Kind), p.PeriodFO4, p.LatencyCycles, p.Registers, p.AreaGE, p.WorstStageFO4, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// No padding after the last cell of a row without a note.
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

func first(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

func last(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

// shortReason is a point's reason without what its row says already:
// the retime prefix naming the unit and period, and the status.
func shortReason(p Point) string {
	r := OneLine(p.Reason)
	for _, pre := range []string{
		fmt.Sprintf("retime: %s at %v FO4: ", p.Unit, p.PeriodFO4),
		fmt.Sprintf("retime: %s: ", p.Unit),
	} {
		r = strings.TrimPrefix(r, pre)
	}
	if p.Status == TooShort {
		r = strings.TrimSuffix(r, ": "+retime.ErrPeriod.Error())
	}
	return r
}

// ErrNothingToDraw is SVG's error for a sweep with no pipelined point.
var ErrNothingToDraw = errors.New("no point of the sweep was pipelined: nothing to draw")

// SVG draws (a) area against period, one series per unit, from the
// points pipelined, and (b) the flip-flops, which show the cost of a
// deeper pipeline where units of very different areas share panel (a).
func (s *Sweep) SVG() ([]byte, error) {
	var area, regs []plot.Series
	var left []string
	for i := 0; i < len(s.Points); {
		j := i
		a := plot.Series{Name: s.Points[i].Unit}
		r := plot.Series{Name: a.Name}
		for ; j < len(s.Points) && s.Points[j].Unit == a.Name; j++ {
			p := s.Points[j]
			if p.Status != OK {
				continue
			}
			tip := fmt.Sprintf("%s at %g FO4: %s, %s, %.1f GE, worst stage %.2f FO4", p.Unit, p.PeriodFO4, plot.Plural(p.LatencyCycles, "cycle"), plot.Plural(p.Registers, "flip-flop"), p.AreaGE, p.WorstStageFO4)
			a.Points = append(a.Points, plot.Point{X: p.PeriodFO4, Y: p.AreaGE, Tip: tip})
			r.Points = append(r.Points, plot.Point{X: p.PeriodFO4, Y: float64(p.Registers), Tip: tip})
		}
		if len(a.Points) > 0 {
			area, regs = append(area, a), append(regs, r)
		} else {
			left = append(left, a.Name)
		}
		i = j
	}
	if len(area) == 0 {
		return nil, ErrNothingToDraw
	}
	sub := fmt.Sprintf("%s (--timing-mode %s); each unit pipelined at each period; hover a point for its cycles and flip-flops", timing.Mode(s.Model.Mode).Words(), s.Model.Mode)
	if len(left) > 0 {
		sub += "; not drawn (clocked, or no period met): " + strings.Join(left, ", ")
	}
	f := plot.NewFigure()
	f.LineChart(&plot.LineChart{
		Title:    "(a) Area of the pipelined units against the clock period",
		Subtitle: sub,
		XLabel:   "clock period (FO4)",
		YLabel:   "area (GE, flip-flops included)",
		Series:   area,
	})
	f.LineChart(&plot.LineChart{
		Title:    "(b) Flip-flops of the pipelined units against the clock period",
		Subtitle: "pipeline, output and valid registers",
		XLabel:   "clock period (FO4)",
		YLabel:   "flip-flops",
		Series:   regs,
	})
	if err := f.Err(); err != nil {
		return nil, err
	}
	return f.SVG(), nil
}
