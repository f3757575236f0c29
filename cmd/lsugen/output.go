package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// writeAll writes every file of set (name -> contents) into dir, all or
// nothing as far as the file system allows: each file is first written in
// full to a temporary file beside its target, and only when all of them
// are written are they renamed into place. A failure removes the
// temporaries and leaves earlier outputs untouched.
func writeAll(dir string, set map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	temps := map[string]string{}
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, n := range names {
		f, err := os.CreateTemp(dir, "."+n+".tmp-*")
		if err != nil {
			cleanup()
			return err
		}
		temps[n] = f.Name()
		_, werr := f.Write(set[n])
		serr := f.Sync()
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
	for _, n := range names {
		if err := os.Rename(temps[n], filepath.Join(dir, n)); err != nil {
			cleanup()
			return err
		}
		delete(temps, n)
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
