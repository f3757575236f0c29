// Package svgcheck reads back the SVG figures lsugen draws and finds the
// layout faults a reader would see: text outside the view box, text boxes
// that overlap each other, and text drawn over data (points, curves,
// reference lines). The tests of package plot and of tools/search use it;
// it imports no lsugen package.
//
// Text is measured without a font renderer, conservatively: the figures
// use a monospace font, whose advance is 0.60 em in DejaVu Sans Mono,
// Liberation Mono, Menlo and Courier (Consolas 0.55 em); a character is
// taken as EmWidth = 0.62 em wide, and a line of text as reaching Ascent
// above its baseline and Descent below it.
package svgcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Font metrics in ems, rounded up from DejaVu Sans Mono.
const (
	EmWidth = 0.62 // advance of one character
	Ascent  = 0.78 // capital letters and digits above the baseline
	Descent = 0.24 // descenders below it
)

// TextWidth is the estimated width of s at font size size.
func TextWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * EmWidth * size
}

// Rect is an axis-aligned box, X0 ≤ X1 and Y0 ≤ Y1.
type Rect struct{ X0, Y0, X1, Y1 float64 }

func (r Rect) String() string {
	return fmt.Sprintf("[%.1f,%.1f]x[%.1f,%.1f]", r.X0, r.X1, r.Y0, r.Y1)
}

// overlap is the extent of the intersection of a and b along x and y
// (negative where they are apart).
func overlap(a, b Rect) (w, h float64) {
	return math.Min(a.X1, b.X1) - math.Max(a.X0, b.X0), math.Min(a.Y1, b.Y1) - math.Max(a.Y0, b.Y0)
}

// Elem is one element with its attributes (inherited presentation
// attributes not merged) and, for elements that hold one, the text of
// their <title> child (the tooltip).
type Elem struct {
	Name  string
	Attr  map[string]string
	Title string
}

// Text is a text element as drawn: its string (white space collapsed),
// class, font size and estimated box.
type Text struct {
	S     string
	Class string
	Size  float64
	Box   Rect
}

// Segment is a straight stroke of a line or polyline.
type Segment struct {
	Class          string
	X0, Y0, X1, Y1 float64
}

// Circle is a circle element.
type Circle struct {
	Class     string
	CX, CY, R float64
}

// Doc is what Parse reads from an SVG document.
type Doc struct {
	ViewBox  Rect
	Elems    []Elem
	Texts    []Text
	Segments []Segment
	Circles  []Circle
	// Classes counts elements by class attribute.
	Classes map[string]int
}

// ByClass returns the elements of class c, in document order.
func (d *Doc) ByClass(c string) []Elem {
	var out []Elem
	for _, e := range d.Elems {
		if e.Attr["class"] == c {
			out = append(out, e)
		}
	}
	return out
}

// TextsOf returns the strings of the text elements of class c.
func (d *Doc) TextsOf(c string) []string {
	var out []string
	for _, t := range d.Texts {
		if t.Class == c {
			out = append(out, t.S)
		}
	}
	return out
}

type frame struct {
	size   float64
	anchor string
	elem   int // index in Elems, or -1
}

// Parse reads an SVG document. It refuses documents that are not XML,
// whose root is not an svg element with a viewBox, and text it cannot
// measure (a transform other than a rotation by a multiple of 90°).
func Parse(b []byte) (*Doc, error) {
	d := &Doc{Classes: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	stack := []frame{{size: 16, anchor: "start", elem: -1}}
	var text *Text // the text element being read
	var textAttr xml.StartElement
	var content strings.Builder
	inTitle := 0
	var title strings.Builder
	root := true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not XML: %w", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			if root {
				root = false
				if tok.Name.Local != "svg" {
					return nil, fmt.Errorf("root element %q, want svg", tok.Name.Local)
				}
				f := strings.Fields(attr["viewBox"])
				if len(f) != 4 {
					return nil, fmt.Errorf("viewBox %q", attr["viewBox"])
				}
				var v [4]float64
				for i, s := range f {
					if v[i], err = strconv.ParseFloat(s, 64); err != nil {
						return nil, fmt.Errorf("viewBox %q: %w", attr["viewBox"], err)
					}
				}
				d.ViewBox = Rect{v[0], v[1], v[0] + v[2], v[1] + v[3]}
			}
			top := stack[len(stack)-1]
			fr := frame{size: top.size, anchor: top.anchor, elem: -1}
			if s, ok := attr["font-size"]; ok {
				if fr.size, err = strconv.ParseFloat(strings.TrimSuffix(s, "px"), 64); err != nil {
					return nil, fmt.Errorf("font-size %q: %w", s, err)
				}
			}
			if a, ok := attr["text-anchor"]; ok {
				fr.anchor = a
			}
			if c, ok := attr["class"]; ok {
				d.Classes[c]++
			}
			name := tok.Name.Local
			if name == "title" {
				inTitle++
				title.Reset()
			} else {
				d.Elems = append(d.Elems, Elem{Name: name, Attr: attr})
				fr.elem = len(d.Elems) - 1
			}
			switch name {
			case "text":
				text = &Text{Class: attr["class"], Size: fr.size}
				textAttr = tok
				content.Reset()
			case "line":
				d.Segments = append(d.Segments, Segment{attr["class"], num(attr["x1"]), num(attr["y1"]), num(attr["x2"]), num(attr["y2"])})
			case "polyline":
				var pts [][2]float64
				for _, p := range strings.Fields(attr["points"]) {
					x, y, _ := strings.Cut(p, ",")
					pts = append(pts, [2]float64{num(x), num(y)})
				}
				for i := 1; i < len(pts); i++ {
					d.Segments = append(d.Segments, Segment{attr["class"], pts[i-1][0], pts[i-1][1], pts[i][0], pts[i][1]})
				}
			case "circle":
				d.Circles = append(d.Circles, Circle{attr["class"], num(attr["cx"]), num(attr["cy"]), num(attr["r"])})
			}
			stack = append(stack, fr)
		case xml.CharData:
			switch {
			case inTitle > 0:
				title.Write(tok)
			case text != nil:
				content.Write(tok)
			}
		case xml.EndElement:
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch tok.Name.Local {
			case "title":
				inTitle--
				// The tooltip belongs to the enclosing element.
				if p := stack[len(stack)-1].elem; p >= 0 {
					d.Elems[p].Title = strings.Join(strings.Fields(title.String()), " ")
				}
			case "text":
				text.S = strings.Join(strings.Fields(content.String()), " ")
				box, err := textBox(text.S, fr.size, fr.anchor, textAttr)
				if err != nil {
					return nil, err
				}
				text.Box = box
				d.Texts = append(d.Texts, *text)
				text = nil
			}
		}
	}
	if root {
		return nil, errors.New("empty document")
	}
	return d, nil
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v
}

// textBox is the estimated box of a text element.
func textBox(s string, size float64, anchor string, el xml.StartElement) (Rect, error) {
	var x, y float64
	tr := ""
	for _, a := range el.Attr {
		switch a.Name.Local {
		case "x":
			x = num(a.Value)
		case "y":
			y = num(a.Value)
		case "transform":
			tr = a.Value
		}
	}
	w := TextWidth(s, size)
	x0 := x
	switch anchor {
	case "middle":
		x0 = x - w/2
	case "end":
		x0 = x - w
	}
	r := Rect{x0, y - Ascent*size, x0 + w, y + Descent*size}
	if tr == "" {
		return r, nil
	}
	var deg, cx, cy float64
	if n, err := fmt.Sscanf(tr, "rotate(%g %g %g)", &deg, &cx, &cy); err != nil || n != 3 {
		return r, fmt.Errorf("text %q: transform %q: want rotate(deg cx cy)", s, tr)
	}
	q := int(math.Round(deg / 90))
	if math.Abs(deg-float64(q)*90) > 1e-9 {
		return r, fmt.Errorf("text %q: rotation %g° is not a multiple of 90°", s, deg)
	}
	sin, cos := math.Sincos(float64(q) * math.Pi / 2)
	out := Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range [][2]float64{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X0, r.Y1}, {r.X1, r.Y1}} {
		dx, dy := p[0]-cx, p[1]-cy
		px, py := cx+dx*cos-dy*sin, cy+dx*sin+dy*cos
		out.X0, out.X1 = math.Min(out.X0, px), math.Max(out.X1, px)
		out.Y0, out.Y1 = math.Min(out.Y0, py), math.Max(out.Y1, py)
	}
	return out, nil
}

// Tolerance is how far boxes may touch before it counts as an overlap, in
// user units.
const Tolerance = 0.5

// Faults lists the layout faults of d: every text box must lie inside the
// view box; no two text boxes may overlap; no text box may be crossed by
// a segment or touch a circle of one of the classes in data (the data and
// reference marks: "point", "series-line", ...).
func (d *Doc) Faults(data ...string) []string {
	var out []string
	vb := d.ViewBox
	for _, t := range d.Texts {
		b := t.Box
		if b.X0 < vb.X0-Tolerance || b.Y0 < vb.Y0-Tolerance || b.X1 > vb.X1+Tolerance || b.Y1 > vb.Y1+Tolerance {
			out = append(out, fmt.Sprintf("text %q %v leaves the view box %v", t.S, b, vb))
		}
	}
	for i, a := range d.Texts {
		for _, b := range d.Texts[i+1:] {
			if w, h := overlap(a.Box, b.Box); w > Tolerance && h > Tolerance {
				out = append(out, fmt.Sprintf("texts %q %v and %q %v overlap", a.S, a.Box, b.S, b.Box))
			}
		}
	}
	isData := map[string]bool{}
	for _, c := range data {
		isData[c] = true
	}
	for _, t := range d.Texts {
		b := t.Box
		inner := Rect{b.X0 + Tolerance, b.Y0 + Tolerance, b.X1 - Tolerance, b.Y1 - Tolerance}
		for _, s := range d.Segments {
			if isData[s.Class] && crosses(inner, s) {
				out = append(out, fmt.Sprintf("text %q %v is crossed by a %s from (%.1f,%.1f) to (%.1f,%.1f)", t.S, b, s.Class, s.X0, s.Y0, s.X1, s.Y1))
			}
		}
		for _, c := range d.Circles {
			if !isData[c.Class] {
				continue
			}
			nx := math.Max(inner.X0, math.Min(c.CX, inner.X1))
			ny := math.Max(inner.Y0, math.Min(c.CY, inner.Y1))
			if math.Hypot(nx-c.CX, ny-c.CY) < c.R {
				out = append(out, fmt.Sprintf("text %q %v covers a %s at (%.1f,%.1f)", t.S, b, c.Class, c.CX, c.CY))
			}
		}
	}
	return out
}

// crosses reports whether segment s passes through box r (Liang–Barsky).
func crosses(r Rect, s Segment) bool {
	if r.X0 >= r.X1 || r.Y0 >= r.Y1 {
		return false
	}
	dx, dy := s.X1-s.X0, s.Y1-s.Y0
	t0, t1 := 0.0, 1.0
	for _, c := range [][2]float64{{-dx, s.X0 - r.X0}, {dx, r.X1 - s.X0}, {-dy, s.Y0 - r.Y0}, {dy, r.Y1 - s.Y0}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}
