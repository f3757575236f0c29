package svgcheck

import (
	"math"
	"slices"
	"strings"
	"testing"
)

const doc = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" font-size="10">
<text x="10" y="20" class="a">hello</text>
<text x="40" y="22" class="b">world</text>
<text x="190" y="50" text-anchor="end">right</text>
<text x="150" y="50" text-anchor="middle">mid</text>
<text x="195" y="90" font-size="20">cut</text>
<text x="20" y="60" transform="rotate(-90 20 60)">up</text>
<g font-size="12" text-anchor="end"><text x="100" y="95">in g <title>not drawn</title></text></g>
<polyline class="curve" points="0,80 200,80"/>
<circle class="point" cx="150" cy="47" r="3"><title>a tip</title></circle>
</svg>`

// TestParse: text boxes from anchor, inherited font size and rotation;
// tooltips belong to their element.
func TestParse(t *testing.T) {
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if d.ViewBox != (Rect{0, 0, 200, 100}) {
		t.Errorf("viewBox %v", d.ViewBox)
	}
	want := map[string]Rect{
		"hello": {10, 20 - 7.8, 10 + 5*6.2, 20 + 2.4},
		"world": {40, 22 - 7.8, 40 + 5*6.2, 22 + 2.4},
		"right": {190 - 5*6.2, 50 - 7.8, 190, 50 + 2.4},
		"mid":   {150 - 1.5*6.2, 50 - 7.8, 150 + 1.5*6.2, 50 + 2.4},
		"cut":   {195, 90 - 15.6, 195 + 3*12.4, 90 + 4.8},
		// "up" rotated a quarter turn back about its start.
		"up":   {20 - 7.8, 60 - 2*6.2, 20 + 2.4, 60},
		"in g": {100 - 4*0.62*12, 95 - 0.78*12, 100, 95 + 0.24*12},
	}
	for _, tx := range d.Texts {
		w, ok := want[tx.S]
		if !ok {
			t.Errorf("unexpected text %q", tx.S)
			continue
		}
		for _, p := range [][2]float64{{tx.Box.X0, w.X0}, {tx.Box.Y0, w.Y0}, {tx.Box.X1, w.X1}, {tx.Box.Y1, w.Y1}} {
			if math.Abs(p[0]-p[1]) > 1e-9 {
				t.Errorf("%q: box %v, want %v", tx.S, tx.Box, w)
				break
			}
		}
	}
	if e := d.ByClass("point"); len(e) != 1 || e[0].Title != "a tip" {
		t.Errorf("point tooltip %v", e)
	}
	if got := d.TextsOf("a"); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("TextsOf(a) = %q", got)
	}
}

// TestFaults: each kind of fault is found, and only those.
func TestFaults(t *testing.T) {
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := d.Faults("point", "curve")
	want := []string{
		`text "cut"`,    // leaves the view box
		`texts "hello"`, // overlaps "world"
		`text "mid" [140.7,159.3]x[42.2,52.4] covers a point`,
		`text "cut" [195.0,232.2]x[74.4,94.8] is crossed by a curve`,
	}
	if len(got) != len(want) {
		t.Fatalf("faults:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("fault %d = %q, want it to start %q", i, got[i], w)
		}
	}
	// The curve at y = 80 crosses no text; move one onto it.
	d2, _ := Parse([]byte(strings.Replace(doc, `y="60" transform="rotate(-90 20 60)"`, `y="83"`, 1)))
	if f := d2.Faults("curve"); len(f) != 4 || !strings.Contains(f[3], `"up"`) || !strings.Contains(f[3], "crossed by a curve") {
		t.Errorf("faults with a text on the curve:\n%s", strings.Join(f, "\n"))
	}
}

func TestParse_Refusals(t *testing.T) {
	for _, s := range []string{
		"not xml <",
		`<html/>`,
		`<svg viewBox="0 0 1"/>`,
		`<svg viewBox="0 0 10 10"><text x="1" y="1" transform="rotate(30 1 1)">t</text></svg>`,
		`<svg viewBox="0 0 10 10"><text x="1" y="1" transform="scale(2)">t</text></svg>`,
	} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
}
