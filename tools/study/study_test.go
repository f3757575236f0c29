package study

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/plot"
)

var testParams = []Param{{Name: "n", Default: "4"}, {Name: "list", Default: "1,2"}}

func TestOptions_ParamsCheckedBeforeUse(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"m": "1"}, `unknown parameter "m" (this study takes n, list)`},
		{map[string]string{"n": "x"}, `n: "x" is not an integer`},
		{map[string]string{"n": "9"}, "n: 9 is out of range 0..8"},
		{map[string]string{"list": "1,,2"}, `list: "" is not an integer`},
		{map[string]string{"list": "1,2,3,4"}, "list: 4 values, at most 3"},
	} {
		opt := Options{Set: c.set}
		err := opt.CheckSet(testParams)
		if err == nil {
			_, err = opt.Int(testParams, "n", 0, 8)
		}
		if err == nil {
			_, err = opt.Ints(testParams, "list", 0, 8, 3)
		}
		if err == nil || err.Error() != c.want || !IsParamError(err) {
			t.Errorf("%v: %v, want the parameter error %q", c.set, err, c.want)
		}
	}
	opt := Options{Set: map[string]string{"list": " 3, 5"}}
	if v, err := opt.Int(testParams, "n", 0, 8); v != 4 || err != nil {
		t.Errorf("default n: %d, %v", v, err)
	}
	if v, err := opt.Ints(testParams, "list", 0, 8, 3); err != nil || len(v) != 2 || v[0] != 3 || v[1] != 5 {
		t.Errorf("list: %v, %v", v, err)
	}
	if got := opt.Resolved(testParams); got[0] != (Setting{"n", "4"}) || got[1] != (Setting{"list", " 3, 5"}) {
		t.Errorf("resolved %v", got)
	}
	if err := (Options{Inputs: []string{"a.trace"}}).NoInputs(); !IsParamError(err) {
		t.Errorf("inputs to a study that reads none: %v", err)
	}
}

func TestResult_TextCellAndFigure(t *testing.T) {
	r := &Result{Study: "s", Paper: "002", Title: "T", Params: []Setting{{"n", "4"}},
		Tables: []Table{{Title: "t", Columns: []string{"name", "v"}, Rows: [][]string{{"a", "1"}, {"bb", "22"}}}},
		Notes:  []string{"a note"}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "T (002_*)\nparameters: n=4\n\nt\nname   v\na      1\nbb    22\n\n- a note\n"
	if b.String() != want {
		t.Errorf("text:\n%q\nwant\n%q", b.String(), want)
	}
	if v, err := r.Tables[0].Cell("v", "bb"); v != "22" || err != nil {
		t.Errorf("cell: %q, %v", v, err)
	}
	if _, err := r.Tables[0].Cell("v", "c"); err == nil {
		t.Error("a missing row gave a cell")
	}
	if _, err := r.SVG(); err == nil {
		t.Error("a study without a figure drew one")
	}
	r.Charts = []plot.LineChart{{Title: "c", Series: []plot.Series{{Name: "x", Points: []plot.Point{{X: 1, Y: 2}, {X: 2, Y: 3}}}}}}
	if svg, err := r.SVG(); err != nil || !strings.HasPrefix(string(svg), "<svg") {
		t.Errorf("figure: %v", err)
	}
}
