package units

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/spec-reference.md")

const specReferencePath = "../docs/spec-reference.md"

// TestSpecReference_UpToDate fails when docs/spec-reference.md is not what
// the loader's tables and the family table say; `make docs` rewrites it.
func TestSpecReference_UpToDate(t *testing.T) {
	want := SpecReference()
	if *updateDocs {
		if err := os.WriteFile(specReferencePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(specReferencePath)
	if err != nil {
		t.Fatalf("%v (run make docs)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run make docs", specReferencePath)
	}
}

// TestSpecReference_DocumentsEveryArgument checks that every argument of
// every block has a type and a meaning, and appears on the page.
func TestSpecReference_DocumentsEveryArgument(t *testing.T) {
	page := string(SpecReference())
	for _, k := range specs.BlockKinds() {
		if k.Doc == "" {
			t.Errorf("%s: no block documentation", k.Type)
		}
		for _, a := range k.Attrs {
			if a.Type == "" || a.Doc == "" {
				t.Errorf("%s.%s: type %q, doc %q", k.Type, a.Name, a.Type, a.Doc)
			}
			if !strings.Contains(page, "| `"+a.Name+"` |") {
				t.Errorf("%s.%s is not on the page", k.Type, a.Name)
			}
		}
	}
}
