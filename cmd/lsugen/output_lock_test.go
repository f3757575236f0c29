//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lsugen/lsugen/internal/testenv"
)

// TestWriteAll_RenamesWaitForTheDirectoryLock: while another run holds
// the output directory's lock, a set of files is not renamed into it; once
// the lock is released, the whole set is. (Two gen runs of different specs
// with the same unit names into one directory left, in 10 of 200 trials,
// a unit whose .v came from one run and whose _gates.v came from the
// other.)
func TestWriteAll_RenamesWaitForTheDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	unlock := lockDir(dir)
	done := make(chan error, 1)
	go func() {
		done <- writeAll(dir, map[string][]byte{"u.v": []byte("rtl\n"), "u_gates.v": []byte("gates\n")})
	}()
	// The writer may be slow to start on a busy machine: this only
	// checks that nothing lands while the lock is held.
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, n := range []string{"u.v", "u_gates.v"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				t.Fatalf("%s written while another run held the directory's lock", n)
			}
		}
	}
	unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testenv.Limit(time.Minute)):
		t.Fatal("the writer did not finish after the lock was released")
	}
	for n, want := range map[string]string{"u.v": "rtl\n", "u_gates.v": "gates\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", n, b, err, want)
		}
	}
}

// TestWriteAll_TwoWritersNeverMixASet: two writers of sets with the same
// names into one directory, many times over: after each round the
// directory holds one writer's set, never a mix.
func TestWriteAll_TwoWritersNeverMixASet(t *testing.T) {
	dir := t.TempDir()
	names := []string{"u.v", "u_gates.v", "u.vec", "u_tb.v"}
	set := func(tag string) map[string][]byte {
		m := map[string][]byte{}
		for _, n := range names {
			m[n] = []byte(tag)
		}
		return m
	}
	for round := 0; round < 100; round++ {
		var wg sync.WaitGroup
		for _, tag := range []string{"A", "B"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := writeAll(dir, set(tag)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		first, _ := os.ReadFile(filepath.Join(dir, names[0]))
		for _, n := range names[1:] {
			if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != string(first) {
				t.Fatalf("round %d: %s holds %q and %s %q: one set mixed from two writers", round, names[0], first, n, b)
			}
		}
	}
}
