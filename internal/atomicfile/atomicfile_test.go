package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a new file, a replaced one and an unchanged one hold the data,
// with no temporary left beside them; a missing directory is an error.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, data := range []string{"one", "two", "two"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != data {
			t.Fatalf("%q, %v; want %q", b, err, data)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries in the directory, want 1", len(es))
	}
	if err := Write(filepath.Join(dir, "no", "f"), nil); err == nil {
		t.Error("a missing directory: no error")
	}
}
