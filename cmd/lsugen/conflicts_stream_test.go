package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestConflicts_StreamsLongTrace is issue 18's "a 1 GiB trace inside every
// documented limit takes 6.2 GB in conflicts": conflicts reads an lsugen
// trace one line at a time, so its heap does not grow with the trace. The
// trace (300,000 32-lane accesses, 26 MB, about 100 MB held whole) comes
// through a FIFO, so nothing large touches the disk.
func TestConflicts_StreamsLongTrace(t *testing.T) {
	const lines = 300_000
	dir := t.TempDir()
	fifo := filepath.Join(dir, "long.trace")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var line strings.Builder
	for l := 0; l < 32; l++ {
		fmt.Fprintf(&line, "%d ", l*33)
	}
	line.WriteString("\n")
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<16)
		for i := 0; i < lines; i++ {
			if _, err := w.WriteString(line.String()); err != nil {
				return
			}
		}
		w.Flush()
	}()

	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := heap()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heap(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	code, stdout, stderr := lsugen(t, "conflicts", "--banks", "32", fifo)
	close(stop)
	<-done
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("%d", lines)) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap grew by %.1f MiB at most", float64(grew)/(1<<20))
	if grew > 24<<20 {
		t.Errorf("conflicts' heap grew by %.1f MiB on a %d-line trace; a streaming reader holds one line", float64(grew)/(1<<20), lines)
	}
}
