package accelsim

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ulikunitz/xz"
)

// TestSniff: Accel-Sim inputs by name, else by their first line that is
// not blank or a comment; lsugen traces are everything else.
func TestSniff(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		want       Kind
	}{
		{"kernel-1.trace", "-kernel name = _Z1kv\n-kernel id = 1\n", KernelTrace},
		{"k", "\n# made by hand\n-accelsim tracer version = 4\n", KernelTrace},
		{"old", "#traces format = threadblock_x threadblock_y\n", KernelTrace},
		{"kernelslist", "MemcpyHtoD,0x00007f2b2d500000,400\nkernel-1.trace\n", KernelsList},
		{"list2", "kernel-1.traceg.xz\n", KernelsList},
		{"t.trace", "# lsugen trace\n@transpose\n0 16 32\n", NotAccelSim},
		{"nums", "0 1 2 3\n", NotAccelSim},
		{"empty", "", NotAccelSim},
		{"x.traceg", "not even a header", KernelTrace}, // by name: the reader reports the error
		{"x.g", "", KernelsList},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := Sniff(path); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// xz of any name, by its content
	var buf bytes.Buffer
	zw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte("-kernel name = k\n"))
	zw.Close()
	path := filepath.Join(dir, "kernel-2.trace.xz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Sniff(path); got != KernelTrace {
		t.Errorf("xz: %v", got)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("xz kernel read: %v", err)
	}
	r.Close()
	// not a regular file: by name only, never read
	if got := Sniff(dir); got != NotAccelSim {
		t.Errorf("directory: %v", got)
	}
	if got := Sniff(filepath.Join(dir, "missing")); got != NotAccelSim {
		t.Errorf("missing: %v", got)
	}
}
