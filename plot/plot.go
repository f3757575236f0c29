// Package plot draws small deterministic SVG figures by hand: a line chart
// (series of points against a linear or log2 x axis, with labelled
// horizontal reference lines) and a horizontal stacked bar (one segment per
// part, labelled where wide enough). The output is SVG text, the same bytes
// for the same input.
//
// Why by hand and not gonum.org/v1/plot: gonum lays out axes and legends
// with real font metrics, but its SVG back end (vg/vgsvg) writes only
// paths and texts under one flipped transform. It has no <title> (the
// figures' tooltips: a point's unit, a segment's gate, nets and fanout),
// no class or data attributes (which tests and style sheets use to find
// series, lines and segments), no grouping, and it places a reference-line
// label where it is told, overlaps included. The layout here is small:
// text is measured conservatively in a monospace font (TextWidth), titles
// and captions wrap to the figure width, reference-line labels sit in a
// right-hand gutter with leader lines, pushed apart where lines are close,
// tick labels that would touch are dropped, and the legend wraps below
// the plot. The tests check every figure with package plot/svgcheck: all
// text inside the view box, no two text boxes overlapping, no text over
// points, curves or reference lines.
//
// Elements carry class attributes so that tests and style sheets can find
// them: "series" groups (with data-name) of a "series-line" polyline and
// "point" circles, "hline" reference lines with an "hline-leader" and an
// "hline-label", "segment" rects with optional "segment-label" texts,
// "mark" lines across the bar with a "mark-label", "legend-entry" groups,
// "title" and "subtitle" texts.
package plot

import (
	"errors"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Point is one data point; Tip is its tooltip.
type Point struct {
	X, Y float64
	Tip  string
}

// Series is a named list of points, drawn joined in increasing X.
type Series struct {
	Name   string
	Points []Point
}

// Line is a labelled reference line at Value (a y value in a LineChart, an
// x value in a Bar).
type Line struct {
	Value float64
	Label string
}

// LineChart plots Series against a shared x axis, LogX making it log2
// (ticks at the x values present). HLines are dashed reference lines.
type LineChart struct {
	Title, Subtitle string
	XLabel, YLabel  string
	LogX            bool
	Series          []Series
	HLines          []Line
}

// Segment is one part of a Bar: its Width in the bar's unit, the Label
// written inside when it fits, Key choosing its colour (same Key, same
// colour, one legend entry), and Tip its tooltip.
type Segment struct {
	Width           float64
	Label, Key, Tip string
}

// Bar is a horizontal stacked bar on an axis from 0 in Unit; Marks are
// vertical reference lines (drawn only within the bar's axis).
type Bar struct {
	Title    string
	Subtitle string
	Unit     string
	Segments []Segment
	Marks    []Line
}

// Palette is the colour cycle of series and segment keys.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3"}

const (
	width     = 800.0
	margin    = 16.0
	fontSize  = 12.0
	titleSize = 14.0
	lineH     = 16.0 // baseline to baseline of fontSize text
	titleH    = 18.0 // of titleSize text
	// FontFamily is monospace, so that a text's width follows from its
	// length; the fonts named first all advance 0.60 em or less.
	FontFamily = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
	// EmWidth is the width of one character in ems taken for layout, a
	// little more than the 0.60 em of the fonts above.
	EmWidth = 0.62
)

// TextWidth is the width taken for s at font size size.
func TextWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * EmWidth * size
}

// Figure is an SVG document of panels stacked top to bottom.
type Figure struct {
	b   strings.Builder
	y   float64 // top of the next panel
	err error   // the first panel refused (Err)
}

// MaxValue bounds the magnitude of every value drawn: past it (or not a
// finite number) a panel is not drawn and Err says why, so that an axis
// always has a few ticks of a representable step.
const MaxValue = 1e15

// ErrValue is wrapped by Err's error: a value that cannot be drawn.
var ErrValue = errors.New("a value that cannot be drawn")

// Err is why a panel was left out of the figure (a value not finite or
// past MaxValue), or nil.
func (f *Figure) Err() error { return f.err }

// checkValue records, for the first bad value of the figure, why the panel
// title is left out; what names the value.
func (f *Figure) checkValue(title, what string, v float64) bool {
	if !math.IsNaN(v) && math.Abs(v) <= MaxValue {
		return true
	}
	if f.err == nil {
		f.err = fmt.Errorf("plot %q: %s = %g: %w (not a finite number within ±%g)", title, what, v, ErrValue, MaxValue)
	}
	return false
}

// NewFigure starts a figure.
func NewFigure() *Figure { return &Figure{y: margin} }

// SVG renders the panels added so far.
func (f *Figure) SVG() []byte {
	h := math.Ceil(f.y + margin)
	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="%s">`+"\n",
		num(width), num(h), num(width), num(h), FontFamily, num(fontSize))
	fmt.Fprintf(&out, `<rect class="background" width="%s" height="%s" fill="white"/>`+"\n", num(width), num(h))
	out.WriteString(f.b.String())
	out.WriteString("</svg>\n")
	return []byte(out.String())
}

func (f *Figure) printf(format string, args ...any) { fmt.Fprintf(&f.b, format+"\n", args...) }

func (f *Figure) text(x, y float64, anchor, class, s string, attrs ...string) {
	extra := ""
	if len(attrs) > 0 {
		extra = " " + strings.Join(attrs, " ")
	}
	if class != "" {
		extra = ` class="` + class + `"` + extra
	}
	f.printf(`<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`, num(x), num(y), anchor, extra, esc(s))
}

// num prints a coordinate with at most 2 decimals.
func num(x float64) string {
	if x == 0 {
		return "0" // also for -0
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// label prints an axis or line value: integers plainly, else 2 decimals.
func label(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return num(x)
}

func esc(s string) string { return html.EscapeString(s) }

// Plural is "1 lane", "2 lanes": n and the word, with an s unless n is 1.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Fit shortens s to at most w wide at size, marking a cut with an
// ellipsis.
func Fit(s string, w, size float64) string {
	n := int(w / (EmWidth * size))
	if r := []rune(s); len(r) > n {
		if n < 1 {
			return ""
		}
		return string(r[:n-1]) + "…"
	}
	return s
}

// Wrap breaks s into lines at most w wide at size, at spaces; a word
// longer than a line is cut with an ellipsis.
func Wrap(s string, w, size float64) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case TextWidth(cur+" "+word, size) <= w:
			cur += " " + word
		default:
			lines = append(lines, Fit(cur, w, size))
			cur = word
		}
	}
	if cur != "" {
		lines = append(lines, Fit(cur, w, size))
	}
	return lines
}

// niceStep is the tick step for about n ticks over span: 1, 2, 2.5 or 5
// times a power of ten.
func niceStep(span float64, n int) float64 {
	if !(span > 0) {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// tickCount is the index of the last tick of an axis from 0 to end in
// steps of step (about 10 for niceStep's steps), at most 100 whatever
// end and step are, so that no value can make an axis loop.
func tickCount(end, step float64) int {
	n := math.Floor(end/step + 0.5)
	if !(n >= 0) {
		return -1
	}
	return int(min(n, 100))
}

// lineChartValues checks every value of c (f.checkValue), and each x > 0
// on a log axis.
func (f *Figure) lineChartValues(c *LineChart) bool {
	for _, s := range c.Series {
		for i, p := range s.Points {
			if !f.checkValue(c.Title, fmt.Sprintf("series %q point %d: x", s.Name, i), p.X) ||
				!f.checkValue(c.Title, fmt.Sprintf("series %q point %d: y", s.Name, i), p.Y) {
				return false
			}
			if c.LogX && !(p.X > 0) {
				if f.err == nil {
					f.err = fmt.Errorf("plot %q: series %q point %d: x = %g: %w (a log axis needs x > 0)", c.Title, s.Name, i, p.X, ErrValue)
				}
				return false
			}
		}
	}
	for i, l := range c.HLines {
		if !f.checkValue(c.Title, fmt.Sprintf("line %d", i), l.Value) {
			return false
		}
	}
	return true
}

// Vertical extent of a line of text about its baseline, in ems (as
// plot/svgcheck measures it).
const (
	ascent  = 0.78
	descent = 0.24
)

// LineChart adds a line-chart panel.
func (f *Figure) LineChart(c *LineChart) {
	const (
		plotH     = 320.0
		leader    = 14.0 // leader line from a reference line to its label
		labelGap  = fontSize + 3
		legendRow = 20.0
	)
	if !f.lineChartValues(c) {
		return
	}
	top := f.heading(c.Title, c.Subtitle) + 10
	y0, y1 := top+plotH, top // y0: bottom of the plot area

	// The x domain: the distinct x values, padded; the y domain from 0.
	var xs []float64
	ymax := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			xs = append(xs, p.X)
			ymax = max(ymax, p.Y)
		}
	}
	for _, l := range c.HLines {
		ymax = max(ymax, l.Value)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	step := niceStep(ymax*1.05, 8)
	ytop := math.Ceil(ymax*1.05/step) * step
	if ytop == 0 {
		ytop = step
	}
	var yticks []float64
	tickW := 0.0
	for i := 0; i <= tickCount(ytop, step); i++ {
		v := float64(i) * step
		yticks = append(yticks, v)
		tickW = max(tickW, TextWidth(label(v), fontSize))
	}

	// Left: the rotated axis label, then the tick labels; right: the
	// gutter of reference-line labels.
	x0 := margin + fontSize + 8 + tickW + 8
	gutter := 8.0
	for _, l := range c.HLines {
		gutter = max(gutter, leader+4+TextWidth(l.Label, fontSize))
	}
	x1 := width - margin - gutter

	tx := func(x float64) float64 { return x }
	if c.LogX {
		tx = func(x float64) float64 { return math.Log2(x) }
	}
	lo, hi := 0.0, 1.0
	if len(xs) > 0 {
		lo, hi = tx(xs[0]), tx(xs[len(xs)-1])
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = 1
	}
	lo, hi = lo-pad, hi+pad
	px := func(x float64) float64 { return x0 + (tx(x)-lo)/(hi-lo)*(x1-x0) }
	py := func(y float64) float64 { return y0 - y/ytop*(y0-y1) }

	// Frame, grid and ticks.
	f.printf(`<rect class="frame" x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#999"/>`, num(x0), num(y1), num(x1-x0), num(y0-y1))
	for _, v := range yticks {
		y := py(v)
		f.printf(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/>`, num(x0), num(y), num(x1), num(y))
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x0-5), num(y), num(x0), num(y))
		f.text(x0-8, y+4, "end", "tick-label", label(v))
	}
	lastRight := math.Inf(-1)
	for _, x := range xs {
		p := px(x)
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(p), num(y0), num(p), num(y0+5))
		s := label(x)
		if w := TextWidth(s, fontSize); p-w/2 >= lastRight+6 {
			f.text(p, y0+18, "middle", "tick-label", s)
			lastRight = p + w/2
		}
	}
	f.text((x0+x1)/2, y0+38, "middle", "axis-label", Fit(c.XLabel, x1-x0, fontSize))
	ly := (y0 + y1) / 2
	lx := margin + fontSize*ascent
	f.text(lx, ly, "middle", "axis-label", Fit(c.YLabel, plotH, fontSize),
		fmt.Sprintf(`transform="rotate(-90 %s %s)"`, num(lx), num(ly)))

	// Reference lines, behind the data, across the plot; their labels in
	// the gutter, pushed apart where lines are close, each joined to its
	// line by a leader.
	ys := make([]float64, len(c.HLines))
	for i, l := range c.HLines {
		ys[i] = py(l.Value)
		f.printf(`<line class="hline" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888" stroke-dasharray="6 4"/>`, num(x0), num(ys[i]), num(x1), num(ys[i]))
	}
	for i, y := range spread(ys, labelGap, y1, y0) {
		f.printf(`<polyline class="hline-leader" points="%s,%s %s,%s %s,%s" fill="none" stroke="#888"/>`,
			num(x1), num(ys[i]), num(x1+leader*0.4), num(ys[i]), num(x1+leader), num(y))
		f.text(x1+leader+3, y+fontSize*0.35, "start", "hline-label", c.HLines[i].Label, `fill="#444"`)
	}

	// Series.
	for i, s := range c.Series {
		color := Palette[i%len(Palette)]
		pts := slices.Clone(s.Points)
		slices.SortStableFunc(pts, func(a, b Point) int {
			switch {
			case a.X < b.X:
				return -1
			case a.X > b.X:
				return 1
			}
			return 0
		})
		f.printf(`<g class="series" data-name="%s" stroke="%s" fill="%s">`, esc(s.Name), color, color)
		var path []string
		for _, p := range pts {
			path = append(path, num(px(p.X))+","+num(py(p.Y)))
		}
		f.printf(`<polyline class="series-line" points="%s" fill="none" stroke-width="2"/>`, strings.Join(path, " "))
		for _, p := range pts {
			f.printf(`<circle class="point" cx="%s" cy="%s" r="4"><title>%s</title></circle>`, num(px(p.X)), num(py(p.Y)), esc(p.Tip))
		}
		f.printf(`</g>`)
	}

	// Legend below the axis label, entries wrapped to the width.
	ky := y0 + 56
	kx := x0
	for i, s := range c.Series {
		color := Palette[i%len(Palette)]
		name := Fit(s.Name, width-margin-x0-34, fontSize)
		w := 34 + TextWidth(name, fontSize) + 18
		if kx+w > width-margin && kx > x0 {
			kx, ky = x0, ky+legendRow
		}
		f.printf(`<g class="legend-entry">`)
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`, num(kx), num(ky), num(kx+22), num(ky), color)
		f.printf(`<circle cx="%s" cy="%s" r="4" fill="%s"/>`, num(kx+11), num(ky), color)
		f.text(kx+30, ky+4, "start", "legend-label", name)
		f.printf(`</g>`)
		kx += w
	}
	f.y = ky + 16
	if len(c.Series) == 0 {
		f.y = y0 + 48
	}
}

// Bar adds a stacked-bar panel.
func (f *Figure) Bar(b *Bar) {
	const (
		barH = 40.0
		keyH = 20.0
		tier = fontSize + 3
	)
	for i, s := range b.Segments {
		if !f.checkValue(b.Title, fmt.Sprintf("segment %d's width", i), s.Width) {
			return
		}
	}
	for i, m := range b.Marks {
		if !f.checkValue(b.Title, fmt.Sprintf("mark %d", i), m.Value) {
			return
		}
	}
	x0, x1 := margin+4, width-margin-12
	head := f.heading(b.Title, b.Subtitle)
	total := 0.0
	for _, s := range b.Segments {
		total += s.Width
	}
	step := niceStep(total, 10)
	end := math.Ceil(total/step) * step
	if end == 0 {
		end = step
	}
	px := func(v float64) float64 { return x0 + v/end*(x1-x0) }

	// Mark labels above the bar, each on the lowest tier where it clears
	// the labels already there.
	type markLabel struct {
		x, lx float64
		tier  int // -1: the mark's line
		label string
	}
	// Marks within a few units of each other on the page share one label
	// ("40, 48, 56" on a long path).
	var inside []Line
	for _, m := range b.Marks {
		if m.Value > 0 && m.Value < end {
			inside = append(inside, m)
		}
	}
	slices.SortStableFunc(inside, func(a, b Line) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	var marks []markLabel
	var right []float64 // per tier, the right edge of its last label
	for k := 0; k < len(inside); {
		x := px(inside[k].Value)
		labels := []string{inside[k].Label}
		j := k + 1
		for ; j < len(inside) && px(inside[j].Value)-px(inside[j-1].Value) < 4; j++ {
			labels = append(labels, inside[j].Label)
		}
		for _, m := range inside[k:j] {
			marks = append(marks, markLabel{x: px(m.Value), tier: -1})
		}
		k = j
		lbl := strings.Join(labels, ", ")
		w := TextWidth(lbl, fontSize)
		lx := min(max(x, margin+w/2), width-margin-w/2)
		t := 0
		for t < len(right) && lx-w/2 < right[t]+6 {
			t++
		}
		if t == len(right) {
			right = append(right, 0)
		}
		right[t] = lx + w/2
		marks = append(marks, markLabel{x, lx, t, lbl})
	}
	top := head + float64(len(right))*tier + 8

	// Colours by key, in order of first appearance.
	var keys []string
	color := map[string]string{}
	for _, s := range b.Segments {
		if _, ok := color[s.Key]; !ok {
			color[s.Key] = Palette[len(keys)%len(Palette)]
			keys = append(keys, s.Key)
		}
	}
	at := 0.0
	for _, s := range b.Segments {
		xa, xb := px(at), px(at+s.Width)
		f.printf(`<rect class="segment" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="white" stroke-width="0.5"><title>%s</title></rect>`,
			num(xa), num(top), num(xb-xa), num(barH), color[s.Key], esc(s.Tip))
		// The label goes in the widest stretch of the segment that no mark
		// crosses, if it fits there.
		if s.Label != "" {
			ca, cb := xa, xb
			cuts := []float64{xa}
			for _, m := range marks {
				if m.tier < 0 && m.x > xa && m.x < xb {
					cuts = append(cuts, m.x)
				}
			}
			cuts = append(cuts, xb)
			slices.Sort(cuts)
			best := -1.0
			for k := 1; k < len(cuts); k++ {
				if w := cuts[k] - cuts[k-1]; w > best {
					best, ca, cb = w, cuts[k-1], cuts[k]
				}
			}
			if cb-ca >= TextWidth(s.Label, fontSize)+6 {
				f.text((ca+cb)/2, top+barH/2+4, "middle", "segment-label", s.Label, `fill="white"`)
			}
		}
		at += s.Width
	}
	for _, m := range marks {
		if m.tier < 0 {
			f.printf(`<line class="mark" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#222" stroke-dasharray="4 3"/>`, num(m.x), num(top-5), num(m.x), num(top+barH+5))
		} else {
			f.text(m.lx, top-8-float64(m.tier)*tier, "middle", "mark-label", m.label, `fill="#333"`)
		}
	}
	// Axis.
	ay := top + barH + 8
	f.printf(`<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x0), num(ay), num(x1), num(ay))
	lastRight := math.Inf(-1)
	for i := 0; i <= tickCount(end, step); i++ {
		v := float64(i) * step
		x := px(v)
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x), num(ay), num(x), num(ay+5))
		s := label(v)
		w := TextWidth(s, fontSize)
		if tx := min(max(x, margin+w/2), width-margin-w/2); tx-w/2 >= lastRight+6 {
			f.text(tx, ay+18, "middle", "tick-label", s)
			lastRight = tx + w/2
		}
	}
	ky := ay + 34
	for _, l := range Wrap(b.Unit, x1-x0, fontSize) {
		f.text((x0+x1)/2, ky, "middle", "axis-label", l)
		ky += lineH
	}
	// Key: one entry per colour, wrapped.
	ky += 4
	kx := x0
	for _, k := range keys {
		k := Fit(k, x1-x0-20, fontSize)
		w := 20 + TextWidth(k, fontSize) + 16
		if kx+w > x1 && kx > x0 {
			kx, ky = x0, ky+keyH
		}
		f.printf(`<g class="legend-entry">`)
		f.printf(`<rect x="%s" y="%s" width="14" height="12" fill="%s"/>`, num(kx), num(ky), color[k])
		f.text(kx+20, ky+10, "start", "legend-label", k)
		f.printf(`</g>`)
		kx += w
	}
	f.y = ky + keyH
}

// heading writes a panel's title and subtitle, wrapped to the width, and
// returns the y below them.
func (f *Figure) heading(title, subtitle string) float64 {
	y := f.y
	for _, l := range Wrap(title, width-2*margin, titleSize) {
		y += titleH
		f.text(margin, y, "start", "title", l, `font-size="14" font-weight="bold"`)
	}
	for _, l := range Wrap(subtitle, width-2*margin, fontSize) {
		y += lineH
		f.text(margin, y, "start", "subtitle", l, `fill="#444"`)
	}
	return y + 8
}

// spread places labels for the positions ys at least gap apart and within
// [lo, hi] (where there is room), each as near its position as it can be:
// sorted, a label that would touch the one before joins its group, and a
// group is centred on the mean of its members' positions.
func spread(ys []float64, gap, lo, hi float64) []float64 {
	idx := make([]int, len(ys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case ys[a] < ys[b]:
			return -1
		case ys[a] > ys[b]:
			return 1
		}
		return 0
	})
	type group struct {
		first, n int     // idx[first:first+n]
		sum      float64 // Σ (position − offset in the group)
		top      float64
	}
	place := func(g *group) {
		g.top = g.sum / float64(g.n)
		g.top = max(min(g.top, hi-float64(g.n-1)*gap), lo)
	}
	var gs []group
	for k, i := range idx {
		g := group{first: k, n: 1, sum: ys[i]}
		place(&g)
		for len(gs) > 0 {
			p := gs[len(gs)-1]
			if p.top+float64(p.n)*gap <= g.top {
				break
			}
			// Merge: g's members sit p.n places further down.
			m := group{first: p.first, n: p.n + g.n, sum: p.sum}
			for j := 0; j < g.n; j++ {
				m.sum += ys[idx[g.first+j]] - float64(p.n+j)*gap
			}
			place(&m)
			g = m
			gs = gs[:len(gs)-1]
		}
		gs = append(gs, g)
	}
	out := make([]float64, len(ys))
	for _, g := range gs {
		for j := 0; j < g.n; j++ {
			out[idx[g.first+j]] = g.top + float64(j)*gap
		}
	}
	return out
}
