package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
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

func TestSpread(t *testing.T) {
	got := spread([]float64{100, 93, 107}, 13)
	// Order kept, gaps at least 13, mean unchanged.
	if !(got[1] < got[0] && got[0] < got[2]) || got[0]-got[1] < 13-1e-9 || got[2]-got[0] < 13-1e-9 {
		t.Errorf("spread = %v", got)
	}
	if m := (got[0] + got[1] + got[2]) / 3; math.Abs(m-100) > 1e-9 {
		t.Errorf("mean moved to %v", m)
	}
	if got := spread([]float64{10, 50}, 13); got[0] != 10 || got[1] != 50 {
		t.Errorf("far-apart labels moved: %v", got)
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", math.Copysign(0, -1): "0", 1.5: "1.5", 2: "2", 3.14159: "3.14", -0.004: "0"} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestFigure: both panels, names escaped, well-formed and deterministic.
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
	classes := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(a))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, a)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, at := range se.Attr {
				if at.Name.Local == "class" {
					classes[at.Value]++
				}
			}
		}
	}
	want := map[string]int{"series": 2, "point": 3, "hline": 2, "segment": 3, "segment-label": 2, "mark": 2, "legend-entry": 4}
	for c, n := range want {
		if classes[c] != n {
			t.Errorf("%d of class %q, want %d", classes[c], c, n)
		}
	}
	if !strings.Contains(string(a), `data-name="s &#34;1&#34;"`) || !strings.Contains(string(a), "a &lt;&amp;&gt; b") {
		t.Error("names are not escaped")
	}
}
