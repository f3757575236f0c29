package units

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/lsugen/lsugen/"

// packageImports lists the lsugen imports of the non-test Go files of
// each package directory under root, by package path relative to the
// module.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				out[pkg] = append(out[pkg], strings.TrimPrefix(p, module))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImports_OneWay checks the dependency rules of docs/architecture.md
// that keep the pipeline one way.
func TestImports_OneWay(t *testing.T) {
	imports := packageImports(t, "..")
	if len(imports["specs"]) == 0 || len(imports["units"]) == 0 {
		t.Fatalf("found no imports of specs or units: %v", imports)
	}
	under := func(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
	rules := []struct {
		from, to, why string
	}{
		{"specs", "rtl", "the loader comes before the writers"},
		{"specs", "tools", "the loader comes before the tools"},
		{"specs", "gen", "the loader comes before the generators"},
		{"verify", "specs", "the harness takes models and vectors from its caller"},
		{"model", "gen", "models share no code with the generators they check"},
		{"model", "netlist", "models share no code with the generators they check"},
		{"model", "rtl", "models share no code with the generators they check"},
		{"gen", "rtl", "generators build designs; writers are leaves"},
		{"rtl", "gen", "writers only read the design"},
		{"timing", "gen", "timing only reads the design"},
		{"gen", "retime", "generators build combinational designs; the pipeliner cuts them after"},
		{"gen", "timing", "generators build designs; timing measures them after"},
		{"retime", "gen", "the pipeliner transforms any design, whichever generator built it"},
		{"retime", "specs", "the pipeliner and the clock sweep (retime/sweep) take designs from their caller, which loads the specs"},
		{"retime", "units", "the pipeliner and the clock sweep (retime/sweep) take designs from their caller, which generates them"},
		{"model", "retime", "models share no code with the generators they check"},
		{"model", "compose", "models share no code with the generators they check"},
		{"gen", "compose", "generators build the parts the composer assembles"},
		{"retime", "compose", "the pipeliner transforms any design, whichever generator built it"},
		{"timing", "compose", "timing only reads the design; the composer's measure reaches it as data"},
		{"rtl", "compose", "writers only read the design"},
		{"verify", "compose", "the harness takes models and stimulus from its caller"},
	}
	// The composer builds designs from generated parts, pipelined and
	// timed: it may import retime and timing, but nothing that checks,
	// writes or tabulates designs.
	composeMay := map[string]bool{"specs": true, "gen": true, "netlist": true, "retime": true, "timing": true}
	for _, imp := range imports["compose"] {
		if !composeMay[imp] {
			t.Errorf("compose imports %s: the composer imports only specs, gen, netlist, retime and timing", imp)
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if under(imp, "cmd") {
				t.Errorf("%s imports %s: nothing imports cmd", pkg, imp)
			}
			if under(imp, "flow") && !under(pkg, "cmd") {
				t.Errorf("%s imports %s: only the commands (and tests) run a session; the stages it calls never import it", pkg, imp)
			}
			for _, r := range rules {
				// verify's sub-packages are checked as verify itself only
				// for the harness rule; the others apply to the tree.
				fromOK := pkg == r.from || (r.from != "verify" && under(pkg, r.from))
				if fromOK && under(imp, r.to) {
					t.Errorf("%s imports %s: %s", pkg, imp, r.why)
				}
			}
		}
	}
}
