// Package inputfile opens the files lsugen reads whole (a sweep's
// manifest and point results, a FuseSoC GAPI file) without trusting what
// the path names: only a regular file is read (a FIFO, device, socket or
// directory is refused without blocking in open), and never more than a
// stated limit, counted while reading, so that /dev/zero, a FIFO nobody
// writes or a file that grows as it is read cannot hang lsugen or exhaust
// its memory.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by the error of a file past its limit.
var ErrTooLarge = errors.New("larger than its limit")

// Open opens path for reading and refuses it unless it is a regular file
// (a symbolic link to one is followed). The open itself does not block:
// O_NONBLOCK keeps a FIFO without a writer from waiting in open(2), and
// the file is checked by fstat on the descriptor opened, so nothing can
// be swapped in between. An absent file gives an error wrapping
// fs.ErrNotExist.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file", path, Kind(fi.Mode()))
	}
	return f, nil
}

// Read reads the regular file path whole (see Open), refusing one of more
// than limit bytes: by its size before reading and by what it holds while
// reading (a file that grows meanwhile). The error names the file and the
// limit, and wraps ErrTooLarge.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func() error {
		return fmt.Errorf("%s: %w of %s", path, ErrTooLarge, Size(limit))
	}
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if size > limit {
		return nil, tooLarge()
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, tooLarge()
	}
	return b, nil
}

// Kind says what a file that is not a regular file is.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Size prints a byte count in the largest binary unit that divides it
// (1 MiB, 300 KiB, 1000 bytes).
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
