package architecture

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the import table of docs/architecture.md from go list")

const (
	module    = "github.com/lsugen/lsugen"
	page      = "../../docs/architecture.md"
	beginMark = "<!-- import table: written by `go test ./internal/architecture -update-docs` (make docs) from go list; a test fails when it is stale -->"
	endMark   = "<!-- end of import table -->"
)

// goList returns every package of the module (path relative to the
// module) with the module packages its non-test files import.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		pkg := rel(f[0])
		graph[pkg] = []string{}
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				graph[pkg] = append(graph[pkg], rel(imp))
			}
		}
		sort.Strings(graph[pkg])
	}
	if len(graph) == 0 {
		t.Fatal("go list found no packages")
	}
	return graph
}

func rel(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// importTable is the page's generated section: one row per package, the
// module packages its non-test files import.
func importTable(graph map[string][]string) string {
	var b strings.Builder
	b.WriteString(beginMark + "\n\n")
	b.WriteString("| package | imports (lsugen packages, non-test files) |\n|---|---|\n")
	for _, pkg := range sortedKeys(graph) {
		imps := make([]string, len(graph[pkg]))
		for i, imp := range graph[pkg] {
			imps[i] = "`" + imp + "`"
		}
		list := strings.Join(imps, ", ")
		if list == "" {
			list = "none (a leaf)"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", pkg, list)
	}
	b.WriteString("\n" + endMark)
	return b.String()
}

// TestArchitecture_ImportTableMatchesGoList: the import table of
// docs/architecture.md is the graph go list reports, every edge stated
// and no stated edge missing.
func TestArchitecture_ImportTableMatchesGoList(t *testing.T) {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s has no import table between the markers %q and %q", page, beginMark, endMark)
	}
	want := importTable(goList(t))
	got := doc[i : j+len(endMark)]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(page, []byte(doc[:i]+want+doc[j+len(endMark):]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the import table of %s", page)
		return
	}
	stated, real := tableEdges(got), tableEdges(want)
	for e := range stated {
		if !real[e] {
			t.Errorf("%s states %s, which go list does not report", page, e)
		}
	}
	for e := range real {
		if !stated[e] {
			t.Errorf("%s does not state %s", page, e)
		}
	}
	t.Errorf("the import table of %s is stale: run make docs (go test ./internal/architecture -update-docs)", page)
}

var rowRE = regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\|$")
var tickRE = regexp.MustCompile("`([^`]+)`")

// tableEdges reads the edges "A imports B" and the rows "A" of a table.
func tableEdges(table string) map[string]bool {
	edges := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		edges["package "+m[1]] = true
		for _, imp := range tickRE.FindAllStringSubmatch(m[2], -1) {
			edges[m[1]+" imports "+imp[1]] = true
		}
	}
	return edges
}

// TestArchitecture_EveryPackageInTheTable: each package of the module
// has a row in the page's package table (its path, in backquotes, in the
// first column), and each row names a directory that exists.
func TestArchitecture_EveryPackageInTheTable(t *testing.T) {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	rows := packageRows(t, string(b))
	for _, pkg := range sortedKeys(goList(t)) {
		if !rows[pkg] {
			t.Errorf("package %s has no row in the package table of %s", pkg, page)
		}
	}
	for dir := range rows {
		if st, err := os.Stat(filepath.Join("../..", dir)); err != nil || !st.IsDir() {
			t.Errorf("%s: the package table names %s, which is not a directory of the module", page, dir)
		}
	}
}

// packageRows returns the backquoted paths in the first column of the
// table under the page's "## Packages" heading.
func packageRows(t *testing.T, doc string) map[string]bool {
	t.Helper()
	i := strings.Index(doc, "\n## Packages\n")
	if i < 0 {
		t.Fatalf("%s has no \"## Packages\" section", page)
	}
	section := doc[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range tickRE.FindAllStringSubmatch(first, -1) {
			rows[m[1]] = true
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows in the package table", page)
	}
	return rows
}
