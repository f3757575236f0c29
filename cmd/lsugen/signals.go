package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interruptSignals cancel the context of every command (cmd.Context(),
// app.ctx): the external tools it runs are killed with their process
// groups (toolchain.Cmd.Run), the command returns, and the temporary work
// directories are removed.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// stopGrace is how long a command has, after the first signal, to stop
// and clean up before lsugen exits anyway; a second signal exits at once.
// Either way the temporary work directories are removed first, and the
// tools already had their SIGKILL.
const stopGrace = 3 * time.Second

// runInterruptible is run (lsugen's main) under SIGINT, SIGTERM and
// SIGHUP. After an interrupt the exit status is 128 + the signal's number
// (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a
// program the signal killed, unless the command had finished its work
// (status 0) by the time it noticed.
func runInterruptible(args []string, stdout, stderr io.Writer) int {
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, interruptSignals...)
	defer signal.Stop(sigc)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, args, stdout, stderr) }()

	var sig os.Signal
	var grace <-chan time.Time
	for {
		select {
		case code := <-done:
			if sig == nil {
				return code
			}
			temporaries.removeAll()
			if code == 0 {
				return 0
			}
			fmt.Fprintf(stderr, "lsugen: interrupted (%v); temporary work directories removed\n", sig)
			return signalStatus(sig)
		case s := <-sigc:
			if sig != nil {
				temporaries.removeAll()
				fmt.Fprintf(stderr, "lsugen: interrupted again (%v): stopped at once\n", s)
				return signalStatus(s)
			}
			sig = s
			cancel()
			grace = time.After(stopGrace)
		case <-grace:
			temporaries.removeAll()
			fmt.Fprintf(stderr, "lsugen: interrupted (%v): the command did not stop within %v; stopped\n", sig, stopGrace)
			return signalStatus(sig)
		}
	}
}

// signalStatus is the exit status of a run stopped by s: 128 + its number.
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// temporaries are the temporary work directories of this run (workDir)
// and the temporary files of the output writer, removed when lsugen is
// interrupted, whatever the command kept; a path already renamed into
// place no longer exists there, so removing it does nothing.
var temporaries tempDirs

type tempDirs struct {
	mu   sync.Mutex
	dirs []string
}

func (t *tempDirs) add(dir string) {
	t.mu.Lock()
	t.dirs = append(t.dirs, dir)
	t.mu.Unlock()
}

func (t *tempDirs) removeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, d := range t.dirs {
		os.RemoveAll(d)
	}
	t.dirs = nil
}

// context is the command's context: the root command's (app.ctx), or
// context.Background() for an app built without one.
func (a *app) context() context.Context {
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}
