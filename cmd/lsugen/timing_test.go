package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const thesisSpec = "../../specs/coalescer_thesis.hcl"

// svgDoc is what the tests read back from an SVG: it must parse as XML;
// classes counts elements by class and names lists the series' data-name.
type svgDoc struct {
	classes map[string]int
	names   []string
	texts   []string
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	doc := svgDoc{classes: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
				if root != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root element %v", tok.Name)
				}
			}
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "class":
					doc.classes[a.Value]++
				case "data-name":
					doc.names = append(doc.names, a.Value)
				}
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				doc.texts = append(doc.texts, s)
			}
		}
	}
	return doc
}

// criticalPaths runs `timing --json` and returns each unit's FO4 and
// number of critical-path stages.
func criticalPaths(t *testing.T, args ...string) (fo4 map[string]float64, stages map[string]int) {
	t.Helper()
	code, out, stderr := lsugen(t, append([]string{"timing", "--json"}, args...)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var rep struct {
		Units []struct {
			Name         string
			FO4          float64
			CriticalPath []json.RawMessage `json:"critical_path"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	fo4, stages = map[string]float64{}, map[string]int{}
	for _, u := range rep.Units {
		fo4[u.Name], stages[u.Name] = u.FO4, len(u.CriticalPath)
	}
	return fo4, stages
}

// TestTiming_SVG: for the thesis coalescers the figure has four series
// (all-to-all, neighbor, speculative, detector) of two points each, the
// three default clock lines, and the slowest unit's critical path as one
// segment per stage; it is XML, written atomically and the same bytes on
// a second run.
func TestTiming_SVG(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "timing.svg") // an output file's directory must exist
	code, stdout, stderr := lsugen(t, "timing", "--svg", svg, thesisSpec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "coalesce_spec_64") || !strings.HasSuffix(stdout, "wrote "+svg+"\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	first, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, first)
	if want := []string{"all_to_all", "neighbor", "speculative", "detector"}; !slices.Equal(doc.names, want) {
		t.Errorf("series %v, want %v", doc.names, want)
	}
	fo4, stages := criticalPaths(t, thesisSpec)
	slowest := ""
	for n, f := range fo4 {
		if slowest == "" || f > fo4[slowest] {
			slowest = n
		}
	}
	want := map[string]int{
		"series": 4, "series-line": 4, "point": 8, // 32 and 64 lanes each
		"hline": 3, "hline-label": 3, // 40, 48, 56 FO4
		"segment": stages[slowest],
	}
	if fo4[slowest] > 56 {
		want["mark"] = 3 // the three periods fall inside the path
	}
	for class, n := range want {
		if doc.classes[class] != n {
			t.Errorf("%d elements of class %q, want %d", doc.classes[class], class, n)
		}
	}
	if stages[slowest] < 2 || doc.classes["segment-label"] == 0 || doc.classes["segment-label"] > stages[slowest] {
		t.Errorf("%s: %d stages, %d labelled", slowest, stages[slowest], doc.classes["segment-label"])
	}
	joined := strings.Join(doc.texts, "\n")
	for _, s := range []string{"clock 40 FO4", "clock 48 FO4", "clock 56 FO4", "Critical path of " + slowest, "lanes (log scale)", "32", "64"} {
		if !strings.Contains(joined, s) {
			t.Errorf("no text %q", s)
		}
	}

	// Deterministic, and no temporaries left beside it.
	if code, _, stderr := lsugen(t, "timing", "--svg", svg, thesisSpec); code != 0 {
		t.Fatal(stderr)
	}
	second, _ := os.ReadFile(svg)
	if !bytes.Equal(first, second) {
		t.Error("two runs wrote different SVGs")
	}
	if entries, _ := os.ReadDir(filepath.Dir(svg)); len(entries) != 1 {
		t.Errorf("%d entries beside the SVG, want 1", len(entries))
	}
}

// TestTiming_SVGOptions: --clock sets the lines, --svg-unit the path;
// --json output stays pure JSON.
func TestTiming_SVGOptions(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "t.svg")
	code, stdout, stderr := lsugen(t, "timing", "--json", "--clock", "30,60", "--svg", svg, "--svg-unit", "coalesce_nbr_32", thesisSpec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !json.Valid([]byte(stdout)) {
		t.Errorf("--json with --svg printed more than JSON:\n%s", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	_, stages := criticalPaths(t, thesisSpec)
	if doc.classes["hline"] != 2 || doc.classes["segment"] != stages["coalesce_nbr_32"] || doc.classes["mark"] != 0 {
		t.Errorf("classes %v; want 2 hlines, %d segments, no marks (the path is shorter than 30 FO4)", doc.classes, stages["coalesce_nbr_32"])
	}
	if !strings.Contains(strings.Join(doc.texts, "\n"), "Critical path of coalesce_nbr_32") {
		t.Error("the path panel is not coalesce_nbr_32's")
	}

	// A spec without coalescers or detectors: the path panel only.
	spec := writeSpec(t, dir, "h.hcl", goodSpec)
	if code, _, stderr := lsugen(t, "timing", "--svg", svg, spec); code != 0 {
		t.Fatal(stderr)
	}
	b, _ = os.ReadFile(svg)
	doc = parseSVG(t, b)
	if doc.classes["series"] != 0 || doc.classes["hline"] != 0 || doc.classes["segment"] == 0 {
		t.Errorf("hash-only SVG classes %v", doc.classes)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--svg", svg, "--svg-unit", "nope", thesisSpec}, "--svg-unit nope: no unit \"nope\" in the specs (units: coalesce_a2a_32,"},
		{[]string{"--svg-unit", "coalesce_nbr_32", thesisSpec}, "--svg-unit needs --svg FILE"},
	} {
		code, _, stderr := lsugen(t, append([]string{"timing"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
