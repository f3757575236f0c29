package liberty

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// withLimits lowers maxBytes and maxToken for one test.
func withLimits(t *testing.T, bytes int64, token int) {
	t.Helper()
	ob, ot := maxBytes, maxToken
	maxBytes, maxToken = bytes, token
	t.Cleanup(func() { maxBytes, maxToken = ob, ot })
}

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkEcho: a message quotes no control character, no invalid UTF-8 and
// at most a clipped piece of what it read.
func checkEcho(t *testing.T, what string, err error, max int) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted", what)
	}
	msg := err.Error()
	if len(msg) > max {
		t.Errorf("%s: a message of %d bytes (want at most %d): %.200q", what, len(msg), max, msg)
	}
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x00\x1b\r\n\xff") {
		t.Errorf("%s: raw bytes in the message %q", what, msg)
	}
}

// TestReadFile_InflatedLimit: a gzip bomb (here 8 MiB of zeros against a
// 1 MiB cap) and a plain file past the cap are refused with an error that
// names the limit; a file of exactly the cap is read.
func TestReadFile_InflatedLimit(t *testing.T) {
	withLimits(t, 1<<20, MaxToken)
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.lib.gz")
	if err := os.WriteFile(bomb, gzipped(t, make([]byte, 8<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(bomb)
	if err == nil || !strings.Contains(err.Error(), "1 MiB (MaxBytes)") || !strings.Contains(err.Error(), "bomb.lib.gz") {
		t.Errorf("gzip bomb: %v; want an error naming the file and the 1 MiB limit", err)
	}
	plain := filepath.Join(dir, "big.lib")
	if err := os.WriteFile(plain, make([]byte, 1<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(plain); err == nil || !strings.Contains(err.Error(), "(MaxBytes)") {
		t.Errorf("plain file one byte past the cap: %v", err)
	}
	exact := filepath.Join(dir, "exact.lib.gz")
	if err := os.WriteFile(exact, gzipped(t, make([]byte, 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(exact); err != nil || len(b) != 1<<20 {
		t.Errorf("a file of exactly the cap: %d bytes, %v", len(b), err)
	}
}

// TestParse_HostileTokens: a huge token is refused naming MaxToken, and
// no message echoes a long or binary token whole.
func TestParse_HostileTokens(t *testing.T) {
	long := strings.Repeat("A", 3<<20)
	_, err := ParseLibrary([]byte("library (x) {\n  " + long + "\n}\n"))
	checkEcho(t, "a 3 MiB word", err, 400)
	if err != nil && !strings.Contains(err.Error(), "(MaxToken)") {
		t.Errorf("a 3 MiB word: %v; want the MaxToken limit named", err)
	}
	_, err = ParseLibrary([]byte("library (x) { time_unit : \"" + strings.Repeat("\x1b[2J", 100_000) + "\"; }"))
	checkEcho(t, "a long escape-sequence string", err, 400)

	bin := "library (x) { cell (a) { } }\n\x1b[31m\x00\xff\xfe" + strings.Repeat("\x01", 1000)
	_, err = ParseLibrary([]byte(bin))
	checkEcho(t, "raw binary bytes", err, 400)
	if err != nil && !strings.Contains(err.Error(), `\x1b[31m`) {
		t.Errorf("raw binary bytes: %q; want them escaped", err)
	}

	withLimits(t, MaxBytes, 100)
	_, err = ParseLibrary([]byte("library (x) { a : \"" + strings.Repeat("\xff", 101) + "\"; }"))
	checkEcho(t, "a string past a 100-byte MaxToken", err, 400)
	if err != nil && !strings.Contains(err.Error(), "a token of 103 bytes") {
		t.Errorf("string past the cap: %v", err)
	}
}

// TestReadFile_Stream: a stream that cannot be measured first (a FIFO) is
// read in one pass, refused past the cap and read whole below it.
func TestReadFile_Stream(t *testing.T) {
	withLimits(t, 9<<20, MaxToken)
	dir := t.TempDir()
	for i, c := range []struct {
		size int
		ok   bool
	}{{10 << 20, false}, {9<<20 - 7, true}} {
		fifo := filepath.Join(dir, "fifo"+strings.Repeat("x", i))
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO:", err)
		}
		want := bytes.Repeat([]byte("0123456789abcdef"), c.size/16+1)[:c.size]
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			w.Write(want)
			w.Close()
		}()
		b, err := ReadFile(fifo)
		switch {
		case c.ok && (err != nil || !bytes.Equal(b, want)):
			t.Errorf("%d bytes: read %d, %v", c.size, len(b), err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "9 MiB (MaxBytes)")):
			t.Errorf("%d bytes: %v; want the 9 MiB limit named", c.size, err)
		}
	}
}
