package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/lsugen/lsugen/internal/inputfile"
)

// The output writer: every file lsugen writes goes through writeFiles
// (writeAll for a directory of files, writeFileAtomic for one file). Its
// promises, whatever the command:
//   - Only regular files are replaced. A target that exists as anything
//     else (a symlink, a directory, a FIFO, a device, a socket) is refused
//     with an error that names it, before anything is written: lsugen never
//     replaces /dev/null, a FIFO a reader waits on, or a link (nor writes
//     through it).
//   - No directory is created except the named output directory of a
//     command that writes a directory of files (gen -o DIR); the parent of
//     a single output file must exist.
//   - All or nothing: every file is written in full to a temporary file
//     beside its target and renamed into place only when all of them are
//     written. An error, or the command's context cancelled (SIGINT,
//     SIGTERM, SIGHUP), removes the temporaries and leaves earlier outputs
//     untouched.

// writeChunk is how much of a file is written between two checks of the
// context, so that an interrupt during a large file stops promptly.
const writeChunk = 1 << 20

// writeAll writes every file of set (name -> contents) into dir, creating
// dir if needed, all or nothing (see writeFiles).
func writeAll(dir string, set map[string][]byte) error {
	return writeAllContext(context.Background(), dir, set)
}

// writeAllContext is writeAll stopped by ctx: cancelled before the files
// are renamed into place, it removes its temporaries and writes nothing.
func writeAllContext(ctx context.Context, dir string, set map[string][]byte) error {
	return writeFiles(ctx, dir, set, true)
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so that path is either untouched or complete. path's directory
// must exist, and path, if it exists, must be a regular file.
func writeFileAtomic(path string, data []byte) error {
	return writeFiles(context.Background(), filepath.Dir(path), map[string][]byte{filepath.Base(path): data}, false)
}

// checkOutputFile refuses, before a long run, an output path that
// writeFileAtomic would refuse at its end: a missing directory, or a
// target that exists and is not a regular file.
func checkOutputFile(path string) error {
	if err := checkOutputDir(filepath.Dir(path), false); err != nil {
		return err
	}
	return checkTargets(filepath.Dir(path), []string{filepath.Base(path)})
}

// writeFiles writes set into dir, all or nothing as far as the file system
// allows. With mkdir dir is created (with its parents) if missing;
// without, a missing dir is an error. Every target is checked before
// anything is written: one that exists and is not a regular file is
// refused.
func writeFiles(ctx context.Context, dir string, set map[string][]byte, mkdir bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	names := make([]string, 0, len(set))
	for n := range set {
		if n == "" || n == "." || n == ".." || filepath.Base(n) != n {
			return badInput(fmt.Errorf("%s: not a file name", filepath.Join(dir, n)))
		}
		names = append(names, n)
	}
	sort.Strings(names)
	// A target or directory refused before anything is written is bad
	// input (exit status 2); a failure while writing is a failure (1).
	if err := checkOutputDir(dir, mkdir); err != nil {
		return badInput(err)
	}
	if err := checkTargets(dir, names); err != nil {
		return badInput(err)
	}
	if mkdir {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	temps := map[string]string{}
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, n), err)
		}
		f, err := os.CreateTemp(dir, "."+n+".tmp-*")
		if err != nil {
			cleanup()
			return err
		}
		temps[n] = f.Name()
		// Also on the list an interrupt empties when lsugen cannot wait
		// for this writer (a second signal, or past the grace period).
		temporaries.add(f.Name())
		werr := writeChunks(ctx, f, set[n])
		var serr error
		if werr == nil {
			serr = f.Sync()
		}
		cerr := f.Close()
		if err := firstErr(werr, serr, cerr); err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, n), err)
		}
		if err := os.Chmod(f.Name(), 0o644); err != nil {
			cleanup()
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return fmt.Errorf("writing %s: %w", dir, err)
	}
	// The renames under the directory's lock, so that another lsugen
	// writing the same names into dir renames its set before or after
	// this one, never between.
	defer lockDir(dir)()
	// Again, just before the renames: a target that became a directory or
	// a link while the files were written is still refused.
	if err := checkTargets(dir, names); err != nil {
		cleanup()
		return err
	}
	for _, n := range names {
		if err := os.Rename(temps[n], filepath.Join(dir, n)); err != nil {
			cleanup()
			return err
		}
		delete(temps, n)
	}
	return nil
}

// checkOutputDir checks that dir is a directory (following a link: an
// output directory may be a link to one). A missing dir is an error
// unless mkdir, when it is created later.
func checkOutputDir(dir string, mkdir bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if mkdir {
			return nil
		}
		return fmt.Errorf("%s: no such directory: lsugen creates no directory for an output file", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// checkTargets refuses a target of dir that exists and is not a regular
// file, naming it and what it is.
func checkTargets(dir string, names []string) error {
	for _, n := range names {
		p := filepath.Join(dir, n)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is %s, not a regular file: refusing to replace it (nothing written)", p, fileKind(fi.Mode()))
		}
	}
	return nil
}

// fileKind says what a non-regular file is.
func fileKind(m fs.FileMode) string { return inputfile.Kind(m) }

// checkNotReplacing refuses, before any work, an output that would
// replace one of paths, each what (e.g. "the input"), flag naming the
// output in the message: the same path, or the same file reached another
// way (a link, another spelling, a case-insensitive disk).
func checkNotReplacing(flag, out, what string, paths ...string) error {
	for _, p := range paths {
		if p != "" && sameFile(out, p) {
			return usagef("%s %s would replace %s %s: name another file (nothing written)", flag, out, what, p)
		}
	}
	return nil
}

// sameFile reports whether a and b name one file: the same absolute path,
// or, both existing, the same inode.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// writeChunks writes data to f in chunks of writeChunk bytes, checking
// ctx before each.
func writeChunks(ctx context.Context, f *os.File, data []byte) error {
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(data), writeChunk)
		if _, err := f.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
