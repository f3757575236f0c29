package accelsim

import (
	"bufio"
	"bytes"
	"github.com/lsugen/lsugen/internal/inputfile"
	"io"
	"os"
	"strings"

	"github.com/ulikunitz/xz"
)

// Kind is what an input file holds.
type Kind uint8

const (
	NotAccelSim Kind = iota // an lsugen trace or anything else
	KernelsList             // a kernelslist.g
	KernelTrace             // one kernel's trace, plain or xz
)

// sniffBytes is how much of a file Sniff reads (after xz decompression).
const sniffBytes = 16 << 10

// Sniff says what path holds, the one decision every command makes
// between Accel-Sim and lsugen traces: by name for kernelslist.g (*.g),
// *.traceg and *.traceg.xz, else by content, so that a kernel trace named
// .trace or without an extension is still read as one. A kernel trace
// starts (after blank lines) with a "-kernel ..." or "-accelsim tracer
// version" header line, a "#traces format" comment or #BEGIN_TB; a list
// with a Memcpy line or a kernel file name (other comments are skipped). Only a regular file is read:
// any other (a FIFO, a device) is judged by name alone.
func Sniff(path string) Kind {
	switch {
	case strings.HasSuffix(path, ".traceg") || strings.HasSuffix(path, ".traceg.xz"):
		return KernelTrace
	case strings.HasSuffix(path, ".g"):
		return KernelsList
	}
	// Stat before opening: opening a FIFO, even without blocking, lets a
	// writer waiting in its own open go ahead, and closing it then breaks
	// that writer's pipe before the real reader comes.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return NotAccelSim
	}
	f, err := inputfile.Open(path)
	if err != nil {
		return NotAccelSim
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var r io.Reader = br
	if isXz(br) {
		// Every block the decoder starts within the bytes read is checked.
		if _, err := scanXz(br, 1<<62, sniffBytes); err != nil {
			return NotAccelSim
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return NotAccelSim
		}
		br.Reset(f)
		zr, err := xz.NewReader(br)
		if err != nil {
			return NotAccelSim
		}
		r = zr
	}
	head, _ := io.ReadAll(io.LimitReader(r, sniffBytes))
	return sniffText(head)
}

// sniffText judges the first bytes of a file by its first line that is
// neither blank nor a comment.
func sniffText(head []byte) Kind {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		s := strings.TrimSpace(string(line))
		switch {
		case s == "":
			continue
		case strings.HasPrefix(s, "-kernel ") || strings.HasPrefix(s, "-accelsim tracer version") ||
			strings.HasPrefix(s, "#traces format") || strings.HasPrefix(s, "#BEGIN_TB"):
			return KernelTrace
		case strings.HasPrefix(s, "#"):
			continue // a comment, in either format
		case strings.HasPrefix(s, "Memcpy") ||
			strings.HasPrefix(s, "kernel") && (strings.HasSuffix(s, ".traceg") || strings.HasSuffix(s, ".traceg.xz") ||
				strings.HasSuffix(s, ".trace") || strings.HasSuffix(s, ".trace.xz")):
			return KernelsList
		}
		return NotAccelSim
	}
	return NotAccelSim
}

// isXz reports whether br starts with the xz magic bytes.
func isXz(br *bufio.Reader) bool {
	head, _ := br.Peek(6)
	return string(head) == "\xfd7zXZ\x00"
}
