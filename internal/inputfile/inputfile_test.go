package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead_RegularFileWithinLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{5, 6, 1 << 20} {
		b, err := Read(p, limit)
		if err != nil || string(b) != "hello" {
			t.Errorf("Read(limit %d) = %q, %v", limit, b, err)
		}
	}
	// Through a symbolic link to a regular file.
	l := filepath.Join(dir, "l")
	if err := os.Symlink("f", l); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(l, 5); err != nil || string(b) != "hello" {
		t.Errorf("Read(link) = %q, %v", b, err)
	}
}

func TestRead_PastLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p, 4)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "4 bytes") {
		t.Errorf("Read(limit 4) error %v, want ErrTooLarge naming the file and the limit", err)
	}
}

// A FIFO nobody writes, a device and a directory are refused, the FIFO
// without blocking in open.
func TestOpen_RefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "a FIFO"},
		{"/dev/zero", "a character device"},
		{dir, "a directory"},
	} {
		_, err := Read(c.path, 1<<20)
		if err == nil || !strings.Contains(err.Error(), c.path+" is "+c.kind+", not a regular file") {
			t.Errorf("Read(%s) error %v, want it named %s", c.path, err, c.kind)
		}
	}
	if _, err := Open(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(absent) error %v, want fs.ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 16 << 20: "16 MiB", 300 << 10: "300 KiB", 1000: "1000 bytes", 1 << 30: "1 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
