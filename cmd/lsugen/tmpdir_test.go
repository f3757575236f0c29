package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's tests a temporary directory of their own
// (TMPDIR, read by lsugen run in process and inherited by the lsugen
// processes the tests start), removed when they end. Some tests make
// lsugen fail on purpose, and a failed verify keeps its work directory
// for the user to inspect; others SIGKILL lsugen, which then cannot
// remove its tools' temporary directories. Neither should stay behind in
// the machine's /tmp.
func TestMain(m *testing.M) {
	// A test that runs this binary as lsugen (signals_test.go) gives it
	// the directory to use: the child makes none of its own.
	if os.Getenv("LSUGEN_TEST_TMPDIR") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "lsugen-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	os.Setenv("LSUGEN_TEST_TMPDIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
