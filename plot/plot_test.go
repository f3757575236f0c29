package plot

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/plot/svgcheck"
)

func TestNiceStep(t *testing.T) {
	for _, c := range []struct {
		span float64
		n    int
		want float64
	}{{307, 8, 50}, {100, 10, 10}, {45, 10, 5}, {0.9, 6, 0.2}, {24, 10, 2.5}, {0, 5, 1}} {
		if got := niceStep(c.span, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceStep(%v, %d) = %v, want %v", c.span, c.n, got, c.want)
		}
	}
}

// TestSpread: labels keep their order, end up at least the gap apart and
// inside the bounds, a crowded group is centred on its lines, and labels
// with room stay on their lines.
func TestSpread(t *testing.T) {
	got := spread([]float64{100, 93, 107}, 13, 0, 1000)
	if !(got[1] < got[0] && got[0] < got[2]) || got[0]-got[1] < 13-1e-9 || got[2]-got[0] < 13-1e-9 {
		t.Errorf("spread = %v", got)
	}
	if m := (got[0] + got[1] + got[2]) / 3; math.Abs(m-100) > 1e-9 {
		t.Errorf("mean moved to %v", m)
	}
	if got := spread([]float64{10, 50}, 13, 0, 100); got[0] != 10 || got[1] != 50 {
		t.Errorf("far-apart labels moved: %v", got)
	}
	// A group near the bottom bound is pushed up, not out; a label far
	// above it stays where it is.
	got = spread([]float64{20, 98, 99, 100}, 13, 0, 100)
	if got[0] != 20 || got[3] != 100 || got[2] != 87 || got[1] != 74 {
		t.Errorf("bounded spread = %v, want [20 74 87 100]", got)
	}
	// The group pushed up into the lone label joins it.
	got = spread([]float64{70, 98, 99, 100}, 13, 0, 100)
	if want := []float64{61, 74, 87, 100}; !slices.Equal(got, want) {
		t.Errorf("merged spread = %v, want %v", got, want)
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", math.Copysign(0, -1): "0", 1.5: "1.5", 2: "2", 3.14159: "3.14", -0.004: "0"} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		word string
		want string
	}{{1, "lane", "1 lane"}, {2, "lane", "2 lanes"}, {0, "cycle", "0 cycles"}, {1, "gate level", "1 gate level"}, {40, "gate level", "40 gate levels"}} {
		if got := Plural(c.n, c.word); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
}

// TestWrap: lines fit, no word is lost, an over-long word is cut.
func TestWrap(t *testing.T) {
	s := "the slowest unit: coalescer, speculative; ends at unique_o[0]; unsized; dashed: clock periods shorter than the path"
	lines := Wrap(s, 300, fontSize)
	if len(lines) < 2 || strings.Join(lines, " ") != s {
		t.Errorf("wrap = %q", lines)
	}
	for _, l := range lines {
		if TextWidth(l, fontSize) > 300 {
			t.Errorf("line %q is %.1f wide, over 300", l, TextWidth(l, fontSize))
		}
	}
	if got := Wrap(strings.Repeat("x", 100), 74.4, fontSize); len(got) != 1 || got[0] != strings.Repeat("x", 9)+"…" {
		t.Errorf("long word: %q", got)
	}
}

// dataClasses are the classes of the marks no text may cover.
var dataClasses = []string{"point", "series-line", "hline", "hline-leader", "mark"}

// check parses an SVG and fails the test on any layout fault.
func check(t *testing.T, name string, b []byte) *svgcheck.Doc {
	t.Helper()
	d, err := svgcheck.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	for _, f := range d.Faults(dataClasses...) {
		t.Errorf("%s: %s", name, f)
	}
	return d
}

// TestFigure: both panels, names escaped, well-formed, deterministic and
// free of layout faults.
func TestFigure(t *testing.T) {
	draw := func() []byte {
		f := NewFigure()
		f.LineChart(&LineChart{Title: "a <&> b", XLabel: "x", YLabel: "y", LogX: true,
			Series: []Series{{Name: `s "1"`, Points: []Point{{64, 3, "p&q"}, {8, 1, ""}}}, {Name: "s2", Points: []Point{{8, 2, ""}}}},
			HLines: []Line{{2, "two"}, {2.1, "close"}}})
		f.Bar(&Bar{Title: "bar", Unit: "FO4", Segments: []Segment{{1, "A", "A", "a"}, {0.01, "BBBB", "B", "b"}, {5, "C", "A", "c"}},
			Marks: []Line{{3, "3"}, {3.1, "3.1"}, {100, "off the axis"}}})
		return f.SVG()
	}
	a, b := draw(), draw()
	if !bytes.Equal(a, b) {
		t.Fatal("not deterministic")
	}
	d := check(t, "figure", a)
	want := map[string]int{"series": 2, "point": 3, "hline": 2, "hline-label": 2, "hline-leader": 2,
		"segment": 3, "segment-label": 2, "mark": 2, "mark-label": 2, "legend-entry": 4}
	for c, n := range want {
		if d.Classes[c] != n {
			t.Errorf("%d of class %q, want %d", d.Classes[c], c, n)
		}
	}
	if !strings.Contains(string(a), `data-name="s &#34;1&#34;"`) || !strings.Contains(string(a), "a &lt;&amp;&gt; b") {
		t.Error("names are not escaped")
	}
	// Tooltips on the points that have one and on every segment.
	var tips []string
	for _, e := range d.ByClass("point") {
		tips = append(tips, e.Title)
	}
	if !slices.Equal(tips, []string{"", "p&q", ""}) {
		t.Errorf("point tooltips %q", tips)
	}
	tips = tips[:0]
	for _, e := range d.ByClass("segment") {
		tips = append(tips, e.Title)
	}
	if !slices.Equal(tips, []string{"a", "b", "c"}) {
		t.Errorf("segment tooltips %q", tips)
	}
}

// thesis returns the timing figure's panels for FO4 values like those of
// specs/coalescer_thesis.hcl: four series at 32 and 64 lanes, the clock
// lines, and a critical path of n stages summing to total.
func thesis(fo4 [4][2]float64, clocks []float64, n int, total float64, subtitle string) []byte {
	f := NewFigure()
	c := &LineChart{
		Title:    "(a) Critical path of the coalescers and monotonicity detectors against lanes",
		Subtitle: subtitle,
		XLabel:   "lanes (log scale)", YLabel: "critical path (FO4)", LogX: true,
	}
	for i, name := range []string{"all_to_all", "neighbor", "speculative", "detector"} {
		s := Series{Name: name}
		for j, lanes := range []float64{32, 64} {
			s.Points = append(s.Points, Point{lanes, fo4[i][j], fmt.Sprintf("%s_%g: %s, %g FO4", name, lanes, Plural(int(lanes), "lane"), fo4[i][j])})
		}
		c.Series = append(c.Series, s)
	}
	for _, p := range clocks {
		c.HLines = append(c.HLines, Line{p, fmt.Sprintf("clock %g FO4", p)})
	}
	f.LineChart(c)
	b := &Bar{
		Title:    fmt.Sprintf("(b) Critical path of coalesce_spec_64: %.2f FO4, %s", total, Plural(n, "gate level")),
		Subtitle: "the slowest unit: coalescer, speculative; ends at unique_o[0]; unsized; dashed: clock periods shorter than the path",
		Unit:     "FO4, stage delays in path order (hover a segment for its gate, nets and fanout)",
	}
	cells := []string{"INV", "NAND2", "NOR2", "XOR2", "AOI21", "OAI21", "NAND3", "NOR3", "AND4", "MUX2", "OR2", "NAND4", "NOR4"}
	// A long input stage, many short ones, a long last one: the shape of
	// the speculative coalescer's path.
	b.Segments = append(b.Segments, Segment{total * 0.38, "in", "input driver", "input driver (INV) of a_i[0], fanout 1024"})
	for i := 1; i < n-1; i++ {
		cell := cells[i%len(cells)]
		b.Segments = append(b.Segments, Segment{total * 0.24 / float64(n-2), cell, cell, cell + " stage"})
	}
	b.Segments = append(b.Segments, Segment{total * 0.38, "OR2", "OR2", "OR2 stage"})
	for _, p := range clocks {
		b.Marks = append(b.Marks, Line{p, fmt.Sprintf("%g", p)})
	}
	f.Bar(b)
	return f.SVG()
}

// TestFigure_Layouts: the timing figure at the configurations users draw
// (unsized, where the clock lines crowd below the curves; sized, where a
// point sits just above a clock line; one lane count; crowded clocks; long
// titles) has no text outside the figure, no overlapping text and no text
// over the data; the clock labels are in the gutter right of the plot.
func TestFigure_Layouts(t *testing.T) {
	unsized := [4][2]float64{{48.56, 117.79}, {5.32, 5.81}, {140.05, 292.88}, {47.36, 53.51}}
	sized := [4][2]float64{{8.31, 9.47}, {4.02, 4.15}, {37.98, 42.51}, {31.85, 33.48}}
	long := "unsized: gates as built, unbuffered fanout (--mode unsized); dashed lines: clock periods; " +
		"and a subtitle long enough to need a second and a third line when the figure is only 800 wide, " +
		"with one word far too long to fit on any line: " + strings.Repeat("x", 200)
	cases := []struct {
		name   string
		svg    []byte
		clocks int
	}{
		{"unsized", thesis(unsized, []float64{40, 48, 56}, 40, 292.88, "unsized: gates as built, unbuffered fanout (--mode unsized); dashed lines: clock periods"), 3},
		{"sized", thesis(sized, []float64{40, 48, 56}, 5, 4.15, "sized: logical-effort buffer trees on every stage (--mode sized); dashed lines: clock periods"), 3},
		{"crowded clocks", thesis(unsized, []float64{40, 41, 42, 43, 44, 45, 200, 201}, 40, 292.88, long), 8},
		{"low clocks", thesis(unsized, []float64{0.5, 1, 1.5, 2}, 1, 2.5, long), 4},
	}
	// One lane count, seven series, long names.
	f := NewFigure()
	c := &LineChart{Title: strings.Repeat("a long title ", 12), Subtitle: long, XLabel: "lanes (log scale)", YLabel: "critical path (FO4)", LogX: true,
		HLines: []Line{{40, "clock 40 FO4"}, {48, "clock 48 FO4"}, {56, "clock 56 FO4"}}}
	for i, y := range []float64{9.1, 3.6, 28.3, 17.6, 22.9, 18.5, 31.2} {
		c.Series = append(c.Series, Series{Name: fmt.Sprintf("detector (%s)", strings.Repeat("prefix", i+1)), Points: []Point{{8, y, "tip"}}})
	}
	f.LineChart(c)
	cases = append(cases, struct {
		name   string
		svg    []byte
		clocks int
	}{"one lane count", f.SVG(), 3})

	for _, c := range cases {
		d := check(t, c.name, c.svg)
		if got := len(d.TextsOf("hline-label")); got != c.clocks {
			t.Errorf("%s: %d clock labels, want %d", c.name, got, c.clocks)
		}
		var frame svgcheck.Rect
		for _, e := range d.ByClass("frame") {
			x, w := num2(e.Attr["x"]), num2(e.Attr["width"])
			frame = svgcheck.Rect{X0: x, X1: x + w}
		}
		for _, tx := range d.Texts {
			if tx.Class == "hline-label" && tx.Box.X0 < frame.X1 {
				t.Errorf("%s: clock label %q at x %.1f, inside the plot (right edge %.1f)", c.name, tx.S, tx.Box.X0, frame.X1)
			}
		}
		for _, e := range d.ByClass("point") {
			if e.Title == "" {
				t.Errorf("%s: a point without a tooltip", c.name)
			}
		}
	}
}

// TestBar_MergedMarks: clock marks that fall on one spot of a long path
// keep their lines but share one label.
func TestBar_MergedMarks(t *testing.T) {
	f := NewFigure()
	f.Bar(&Bar{Title: "long path", Unit: "FO4", Segments: []Segment{{4250, "in", "input driver", "in"}, {48, "MUX2", "MUX2", "m"}},
		Marks: []Line{{56, "56"}, {40, "40"}, {48, "48"}, {2000, "2000"}}})
	d := check(t, "merged marks", f.SVG())
	if got := d.TextsOf("mark-label"); !slices.Equal(got, []string{"40, 48, 56", "2000"}) || d.Classes["mark"] != 4 {
		t.Errorf("mark labels %q, %d marks; want [40, 48, 56] [2000] and 4", got, d.Classes["mark"])
	}
	// The segment label moves out from under the mark at 2000.
	if got := d.TextsOf("segment-label"); !slices.Equal(got, []string{"in"}) {
		t.Errorf("segment labels %q", got)
	}
}

func num2(s string) float64 {
	var v float64
	fmt.Sscan(s, &v)
	return v
}

// TestFigure_ValuesPastMaxValue: a value that is not finite or past
// MaxValue leaves its panel out and sets Err (the axis of an area of
// 1.7e308 looped until memory ran out); MaxValue itself is drawn.
func TestFigure_ValuesPastMaxValue(t *testing.T) {
	for _, v := range []float64{1.7e308, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), -2 * MaxValue} {
		for name, draw := range map[string]func(f *Figure){
			"y": func(f *Figure) {
				f.LineChart(&LineChart{Title: "t", Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: 2}, {X: 2, Y: v}}}}})
			},
			"x": func(f *Figure) {
				f.LineChart(&LineChart{Title: "t", Series: []Series{{Name: "s", Points: []Point{{X: v, Y: 2}}}}})
			},
			"hline": func(f *Figure) { f.LineChart(&LineChart{Title: "t", HLines: []Line{{Value: v, Label: "l"}}}) },
			"width": func(f *Figure) { f.Bar(&Bar{Title: "t", Segments: []Segment{{Width: v, Label: "a", Key: "a"}}}) },
			"mark": func(f *Figure) {
				f.Bar(&Bar{Title: "t", Segments: []Segment{{Width: 1, Key: "a"}}, Marks: []Line{{Value: v, Label: "m"}}})
			},
		} {
			f := NewFigure()
			draw(f)
			if err := f.Err(); !errors.Is(err, ErrValue) {
				t.Errorf("%s = %g: Err() = %v, want ErrValue", name, v, err)
			}
			if strings.Contains(string(f.SVG()), "tick") {
				t.Errorf("%s = %g: the panel was drawn", name, v)
			}
		}
	}
	f := NewFigure()
	f.LineChart(&LineChart{Title: "t", Series: []Series{{Name: "s", Points: []Point{{X: 1, Y: MaxValue}, {X: 2, Y: 1}}}}})
	f.Bar(&Bar{Title: "b", Segments: []Segment{{Width: MaxValue, Key: "a"}}})
	if err := f.Err(); err != nil {
		t.Fatalf("MaxValue: %v", err)
	}
	if n := strings.Count(string(f.SVG()), `class="tick-label"`); n < 4 || n > 30 {
		t.Errorf("MaxValue: %d tick labels", n)
	}
	f = NewFigure()
	f.LineChart(&LineChart{Title: "t", LogX: true, Series: []Series{{Name: "s", Points: []Point{{X: 0, Y: 1}}}}})
	if err := f.Err(); !errors.Is(err, ErrValue) {
		t.Errorf("x = 0 on a log axis: Err() = %v", err)
	}
}

// TestTickCount_Bounded: no end or step gives more than 101 ticks.
func TestTickCount_Bounded(t *testing.T) {
	for _, c := range [][2]float64{{math.Inf(1), 1}, {1e300, 1e-300}, {math.NaN(), 1}, {1, 0}, {-5, 1}, {10, 1}} {
		if n := tickCount(c[0], c[1]); n > 100 {
			t.Errorf("tickCount(%g, %g) = %d", c[0], c[1], n)
		}
	}
	if n := tickCount(10, 1); n != 10 {
		t.Errorf("tickCount(10, 1) = %d, want 10", n)
	}
}
