package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/plot/svgcheck"
	"github.com/lsugen/lsugen/tools/study/studies"
)

func TestStudy_ListNamesEveryStudy(t *testing.T) {
	code, stdout, stderr := lsugen(t, "study", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range studies.All {
		if !strings.Contains(stdout, s.Name()+" ") || !strings.Contains(stdout, s.Summary()) {
			t.Errorf("--list does not name %s:\n%s", s.Name(), stdout)
		}
	}
	for _, name := range []string{"atomics-fig5", "histogram", "hough"} {
		if studies.ByName(name) == nil {
			t.Errorf("no study %s", name)
		}
	}
}

func TestStudy_Fig5TableAndFigure(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "f.svg")
	code, stdout, stderr := lsugen(t, "study", "atomics-fig5", "--set", "strides=0,32", "--svg", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// One conflict: Read 32 + Update 18 + Write 36 + Branch 32.
	found := false
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		found = found || len(f) == 7 && f[0] == "1" && f[1] == "118" && f[6] == "118"
	}
	if !found {
		t.Errorf("no row of 118 cycles for one conflict:\n%s", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := svgcheck.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	// A panel per stride, each titled.
	var titles []string
	for _, s := range doc.Texts {
		if strings.HasPrefix(s.S, "Eq. 1, stride") {
			titles = append(titles, s.S)
		}
	}
	if len(titles) != 2 {
		t.Errorf("panel titles %v, want strides 0 and 32", titles)
	}
}

func TestStudy_Errors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"study"}, 2, "name a study"},
		{[]string{"study", "atomics-fig"}, 2, `did you mean "atomics-fig5"`},
		{[]string{"study", "--list", "hough"}, 2, "--list takes no study"},
		{[]string{"study", "hough", "--set", "angles"}, 2, "want NAME=VALUE"},
		{[]string{"study", "hough", "--set", "angles=1", "--set", "angles=2"}, 2, "angles given twice"},
		{[]string{"study", "hough", "--set", "angle=3"}, 2, `unknown parameter "angle"`},
		{[]string{"study", "histogram", "--set", "bins=0"}, 2, "bins: 0 is out of range"},
		{[]string{"study", "hough", "some.trace"}, 2, "reads no input files"},
		{[]string{"study", "atomics-fig5", "--svg", filepath.Join(dir, "no", "f.svg")}, 1, "no"},
	} {
		code, _, stderr := lsugen(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d with %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("a refused --svg created its directory")
	}
}

// Every study has its row in docs/studies.md.
func TestStudy_EveryStudyDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/studies.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range studies.All {
		if !strings.Contains(string(b), "| `"+s.Name()+"` | "+s.Paper()+"_* |") {
			t.Errorf("docs/studies.md has no row for %s", s.Name())
		}
	}
}
