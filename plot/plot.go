// Package plot draws small deterministic SVG figures by hand: a line chart
// (series of points against a linear or log2 x axis, with labelled
// horizontal reference lines) and a horizontal stacked bar (one segment per
// part, labelled where wide enough). No dependencies: the output is SVG
// text, the same bytes for the same input.
//
// Elements carry class attributes so that tests and style sheets can find
// them: "series" groups (with data-name) of a "series-line" polyline and
// "point" circles, "hline" reference lines, "segment" rects with optional
// "segment-label" texts, "mark" lines across the bar, "legend-entry" groups.
package plot

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
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
	width    = 800.0
	margin   = 16.0
	fontSize = 12.0
	charW    = 7.0 // a generous width of one character at fontSize, monospace
)

// Figure is an SVG document of panels stacked top to bottom.
type Figure struct {
	b strings.Builder
	y float64 // top of the next panel
}

// NewFigure starts a figure.
func NewFigure() *Figure { return &Figure{y: margin} }

// SVG renders the panels added so far.
func (f *Figure) SVG() []byte {
	h := f.y + margin
	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="monospace" font-size="%s">`+"\n",
		num(width), num(h), num(width), num(h), num(fontSize))
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

// cut shortens s to n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// halo outlines a text in white so that it reads over lines.
const halo = `stroke="white" stroke-width="3" paint-order="stroke"`

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

// LineChart adds a line-chart panel.
func (f *Figure) LineChart(c *LineChart) {
	const (
		plotH   = 320.0
		left    = 70.0
		bottomH = 48.0
		maxName = 44 // legend characters; longer names are cut
	)
	longest := 0
	for _, s := range c.Series {
		longest = max(longest, min(len([]rune(s.Name)), maxName))
	}
	legendW := 40 + float64(longest)*charW
	x0, x1 := left, width-margin-legendW
	top := f.heading(c.Title, c.Subtitle) + 8
	y0, y1 := top+plotH, top // y0: bottom of the plot area

	// The x domain: the distinct x values, padded.
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
	step := niceStep(ymax*1.05, 8)
	ytop := math.Ceil(ymax*1.05/step) * step
	if ytop == 0 {
		ytop = step
	}
	py := func(y float64) float64 { return y0 - y/ytop*(y0-y1) }

	// Frame, grid and ticks.
	f.printf(`<g class="axes" stroke="#333" fill="none">`)
	f.printf(`<rect x="%s" y="%s" width="%s" height="%s" stroke="#999"/>`, num(x0), num(y1), num(x1-x0), num(y0-y1))
	f.printf(`</g>`)
	for i := 0; float64(i)*step <= ytop+step/2; i++ {
		v := float64(i) * step
		y := py(v)
		f.printf(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/>`, num(x0), num(y), num(x1), num(y))
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x0-5), num(y), num(x0), num(y))
		f.text(x0-8, y+4, "end", "tick-label", label(v))
	}
	for _, x := range xs {
		p := px(x)
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(p), num(y0), num(p), num(y0+5))
		f.text(p, y0+18, "middle", "tick-label", label(x))
	}
	f.text((x0+x1)/2, y0+38, "middle", "axis-label", c.XLabel)
	f.text(margin+4, (y0+y1)/2, "middle", "axis-label", c.YLabel,
		fmt.Sprintf(`transform="rotate(-90 %s %s)"`, num(margin+4), num((y0+y1)/2)))

	// Reference lines, behind the data; labels inside the right edge,
	// pushed apart where lines are close.
	ys := make([]float64, len(c.HLines))
	for i, l := range c.HLines {
		ys[i] = py(l.Value)
		f.printf(`<line class="hline" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888" stroke-dasharray="6 4"/>`, num(x0), num(ys[i]), num(x1), num(ys[i]))
	}
	for i, y := range spread(ys, fontSize+1) {
		f.text(x1-4, y-3, "end", "hline-label", c.HLines[i].Label, `fill="#444"`, halo)
	}

	// Series and legend.
	ly := y1 + 4
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
		lx := x1 + 16
		f.printf(`<g class="legend-entry">`)
		f.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`, num(lx), num(ly+8), num(lx+22), num(ly+8), color)
		f.printf(`<circle cx="%s" cy="%s" r="4" fill="%s"/>`, num(lx+11), num(ly+8), color)
		f.text(lx+28, ly+12, "start", "", cut(s.Name, maxName))
		f.printf(`</g>`)
		ly += 20
	}
	f.y = y0 + bottomH
}

// Bar adds a stacked-bar panel.
func (f *Figure) Bar(b *Bar) {
	const (
		left  = 20.0
		barH  = 40.0
		axisH = 44.0
		keyH  = 20.0
	)
	x0, x1 := left, width-margin-20
	top := f.heading(b.Title, b.Subtitle) + 2*fontSize + 8 // room for the mark labels
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
		if w := xb - xa; s.Label != "" && w >= float64(len(s.Label))*charW+4 {
			f.text((xa+xb)/2, top+barH/2+4, "middle", "segment-label", s.Label, `fill="white"`)
		}
		at += s.Width
	}
	// Marks, labels on two tiers where they would touch.
	tier, last := 0, math.Inf(-1)
	for _, m := range b.Marks {
		if m.Value <= 0 || m.Value >= end {
			continue
		}
		x := px(m.Value)
		f.printf(`<line class="mark" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#222" stroke-dasharray="4 3"/>`, num(x), num(top-6), num(x), num(top+barH+6))
		if x-last < float64(len(m.Label))*charW+6 {
			tier = 1 - tier
		} else {
			tier = 0
		}
		last = x
		f.text(x, top-9-float64(tier)*(fontSize+2), "middle", "mark-label", m.Label, `fill="#333"`, halo)
	}
	// Axis.
	ay := top + barH + 8
	f.printf(`<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x0), num(ay), num(x1), num(ay))
	for i := 0; float64(i)*step <= end+step/2; i++ {
		v := float64(i) * step
		x := px(v)
		f.printf(`<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x), num(ay), num(x), num(ay+5))
		f.text(x, ay+18, "middle", "tick-label", label(v))
	}
	f.text((x0+x1)/2, ay+34, "middle", "axis-label", b.Unit)
	// Key: one entry per colour, wrapped.
	ky := ay + axisH
	kx := x0
	for _, k := range keys {
		w := 22 + float64(len(k))*charW + 16
		if kx+w > x1 && kx > x0 {
			kx, ky = x0, ky+keyH
		}
		f.printf(`<g class="legend-entry">`)
		f.printf(`<rect x="%s" y="%s" width="14" height="12" fill="%s"/>`, num(kx), num(ky), color[k])
		f.text(kx+20, ky+10, "start", "", k)
		f.printf(`</g>`)
		kx += w
	}
	f.y = ky + keyH
}

// heading writes a panel's title and subtitle and returns the y below them.
func (f *Figure) heading(title, subtitle string) float64 {
	y := f.y + 16
	f.text(margin, y, "start", "title", title, `font-size="14" font-weight="bold"`)
	if subtitle != "" {
		y += 18
		f.text(margin, y, "start", "subtitle", subtitle, `fill="#444"`)
	}
	return y + 8
}

// spread moves the positions ys apart to at least gap, keeping their
// order and disturbing them as little as a simple pass can: sorted, each
// pushed past its predecessor, then the group shifted back so that its
// mean stays put.
func spread(ys []float64, gap float64) []float64 {
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
	out := slices.Clone(ys)
	for k := 1; k < len(idx); k++ {
		if d := out[idx[k-1]] + gap - out[idx[k]]; d > 0 {
			out[idx[k]] += d
		}
	}
	shift := 0.0
	for i := range ys {
		shift += out[i] - ys[i]
	}
	if len(ys) > 0 {
		shift /= float64(len(ys))
	}
	for i := range out {
		out[i] -= shift
	}
	return out
}
