//go:build unix

package accelsim

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Sniff judges a FIFO by its name without opening it: an open, even one
// that does not block, would let the writer waiting in its own open go
// ahead, and the close after it would break the writer's pipe before the
// real reader opens (lsugen conflicts on a streamed trace hung so).
func TestSniff_FIFOLeftToItsReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "long.trace")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	const text = "0 1 2 3\n"
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for a reader
		if err == nil {
			_, err = f.WriteString(strings.Repeat(text, 1000))
			f.Close()
		}
		wrote <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the writer reach its open, if it can
	if k := Sniff(fifo); k != NotAccelSim {
		t.Fatalf("Sniff(FIFO .trace) = %v, want NotAccelSim", k)
	}
	// Had Sniff opened the FIFO, the writer would write now, into a pipe
	// without a reader, and give up before the reader below opens.
	time.Sleep(100 * time.Millisecond)
	read := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		read <- string(b)
	}()
	select {
	case got := <-read:
		if got != strings.Repeat(text, 1000) {
			t.Errorf("the reader after Sniff got %d bytes, want %d", len(got), 1000*len(text))
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the reader after Sniff never got the writer's data (its pipe broken by Sniff)")
	}
	if err := <-wrote; err != nil {
		t.Errorf("writer: %v", err)
	}
}
