package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
)

// Work budgets and the progress line of long runs (rapsim, pipesim; any
// command whose work can be counted in advance can use them): the command
// estimates its run from its flags, checkWork refuses it before any work
// when the estimate is over --work-budget, and startProgress keeps a line on
// standard error while it runs.

// defaultWorkBudget is --work-budget's default: ten minutes of CPU time on the
// reference machine (the 2-core AMD EPYC VM the estimates are calibrated
// on; about five minutes there of wall time when the work spreads over
// both cores).
const defaultWorkBudget = 10 * time.Minute

// addWorkBudgetFlag declares --work-budget.
func addWorkBudgetFlag(fs *pflag.FlagSet, p *time.Duration) {
	fs.DurationVar(p, "work-budget", defaultWorkBudget, "refuse a run estimated at more CPU time than this (on the 2-core reference machine), before it starts (0: no limit)")
}

// addQuietFlag declares --quiet.
func addQuietFlag(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "quiet", false, "no progress line on standard error for a long run")
}

// workEstimate is what a run is expected to cost, known from its flags
// before any work.
type workEstimate struct {
	size    string        // what is counted, for messages: "2.6e10 simulated cycles"
	cpu     time.Duration // CPU time on the reference machine
	longest time.Duration // CPU time of its longest task (the tasks run in parallel)
	shrink  string        // the flags that make the run smaller: "--trials, --w or --table"
	workers int           // tasks run at once (--jobs); 0: one per core
}

// wall is the estimated wall time: the CPU time spread over the workers
// and this machine's cores, and not less than the longest task.
func (e workEstimate) wall() time.Duration {
	n := runtime.GOMAXPROCS(0)
	if e.workers > 0 {
		n = min(n, e.workers)
	}
	return max(e.cpu/time.Duration(max(n, 1)), e.longest)
}

// checkWork refuses (exit 2) a run whose estimated CPU time is over limit
// (--work-budget; 0: no limit), naming the estimate, the limit and
// the flags that lift or avoid it.
func checkWork(limit time.Duration, e workEstimate) error {
	if limit <= 0 || e.cpu <= limit {
		return nil
	}
	return usagef("this run is estimated at %s of CPU time (%s; about %s of wall time %s), over the budget of %s (--work-budget; 0 for no limit): make it smaller (%s) or give --work-budget %s or more to run it",
		formatDuration(e.cpu), e.size, formatDuration(e.wall()), e.spread(), formatDuration(limit), e.shrink, formatDuration(roundUpDuration(e.cpu)))
}

// spread says how the work is spread for wall: "on 2 cores", "one at a time".
func (e workEstimate) spread() string {
	n := runtime.GOMAXPROCS(0)
	switch {
	case e.cpu > 0 && e.longest >= e.cpu:
		return "one task after another"
	case e.workers == 1:
		return "one task at a time (--jobs 1)"
	case e.workers > 0 && e.workers < n:
		return fmt.Sprintf("%d tasks at a time (--jobs %d)", e.workers, e.workers)
	}
	return fmt.Sprintf("on %d cores", n)
}

// checkWorkBudgetFlag refuses a negative --work-budget.
func checkWorkBudgetFlag(d time.Duration) error {
	if d < 0 {
		return usagef("--work-budget %v: want a duration of 0 (no limit) or more", d)
	}
	return nil
}

// Progress line timing: a run found to take longer than progressAfter (or
// expected to) shows its line on a terminal, redrawn in place every
// progressLive; when standard error is not a terminal (a log, a pipe, a
// test) a plain line is written every progressLog, the first after
// progressLog, so that short runs leave standard error clean.
const (
	progressAfter = 2 * time.Second
	progressLive  = time.Second
	progressLog   = 10 * time.Second
)

// progress is the progress line of one run: units of work done out of
// total, the percentage, the time elapsed and the time left at the rate so
// far. Add is safe for concurrent use; Stop ends the line.
type progress struct {
	w          io.Writer // nil: --quiet, count only
	name       string    // the command: "lsugen rapsim"
	unit       string    // what is counted: "steps"
	total      int64
	live       bool          // w is a terminal: one line, redrawn with \r
	expectLong bool          // the run is expected to take longer than progressAfter
	expected   time.Duration // its estimated wall time, shown until a unit is done
	start      time.Time
	done       atomic.Int64

	mu      sync.Mutex
	last    time.Time // when the last line was written; zero before the first
	shown   bool      // live: a line is on the terminal
	ended   bool
	stop    chan struct{}
	stopped chan struct{}
}

// newProgress returns a reporter started at start that draws nothing by
// itself: tick draws. quiet silences it.
func newProgress(w io.Writer, quiet, live bool, name, unit string, total int64, expected time.Duration, start time.Time) *progress {
	p := &progress{w: w, name: name, unit: unit, total: total, live: live, expectLong: expected > progressAfter, expected: expected, start: start}
	if quiet {
		p.w = nil
	}
	return p
}

// startProgress starts the progress line of a run of total units on w
// (standard error), expected to take expected of wall time, redrawn by a
// goroutine that ends with Stop or when ctx is cancelled.
func startProgress(ctx context.Context, w io.Writer, quiet bool, name, unit string, total int64, expected time.Duration) *progress {
	p := newProgress(w, quiet, isTerminal(w), name, unit, total, expected, time.Now())
	if p.w == nil {
		return p
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(progressLive)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-p.stop:
				return
			case now := <-t.C:
				p.tick(now)
			}
		}
	}()
	return p
}

// Add counts n more units done.
func (p *progress) Add(n int64) { p.done.Add(n) }

// tick writes the line if one is due at now.
func (p *progress) tick(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || p.ended {
		return
	}
	elapsed := now.Sub(p.start)
	first, every := progressLog, progressLog
	if p.live {
		first, every = progressAfter, progressLive
		if p.expectLong {
			first = progressLive
		}
	}
	// The ticks come a little after each second from start, some later
	// than others: a fifth of a tick of slack after the last line.
	if elapsed < first || !p.last.IsZero() && now.Sub(p.last) < every-progressLive/5 {
		return
	}
	p.last = now
	line := p.line(elapsed)
	if p.live {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// line is the progress line after elapsed.
func (p *progress) line(elapsed time.Duration) string {
	done := min(p.done.Load(), p.total)
	s := fmt.Sprintf("%s: %s/%s %s", p.name, formatCount(done), formatCount(p.total), p.unit)
	if p.total > 0 {
		s += fmt.Sprintf(" (%d%%)", done*100/p.total)
	}
	s += ", " + formatDuration(elapsed) + " elapsed"
	switch {
	case done > 0 && done < p.total:
		left := time.Duration(float64(elapsed) * float64(p.total-done) / float64(done))
		s += ", ETA " + formatDuration(left)
	case done == 0 && p.expected > 0:
		// Nothing done yet to measure a rate by (a single long
		// pipelining): the estimate the run was admitted with.
		s += ", estimated " + formatDuration(p.expected) + " in all"
	}
	return s
}

// Stop ends the reporter and erases its line from the terminal.
func (p *progress) Stop() {
	if p.stop != nil {
		select {
		case <-p.stop:
		default:
			close(p.stop)
		}
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// formatCount writes n whole below 10,000, else with three significant
// digits: 9999, 12.3k, 4.19M, 268G.
func formatCount(n int64) string {
	f := float64(n)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if f >= u.div && f >= 1e4 {
			v := f / u.div
			switch {
			case v >= 100:
				return fmt.Sprintf("%.0f%s", v, u.suffix)
			case v >= 10:
				return fmt.Sprintf("%.1f%s", v, u.suffix)
			}
			return fmt.Sprintf("%.2f%s", v, u.suffix)
		}
	}
	return fmt.Sprintf("%d", n)
}

// formatDuration writes d rounded to whole seconds, or minutes from an
// hour on: 45s, 3m07s, 2h05m; below a second, in milliseconds (below a
// millisecond, as time.Duration writes it).
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d = d.Round(time.Second); d >= time.Hour {
		d = d.Round(time.Minute)
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		s := int(d.Seconds())
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	m := int(d.Minutes())
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// roundUpDuration rounds d up to a whole minute below an hour, to a whole
// hour above: a --work-budget value to suggest.
func roundUpDuration(d time.Duration) time.Duration {
	unit := time.Minute
	if d > time.Hour {
		unit = time.Hour
	}
	return time.Duration(math.Ceil(float64(d)/float64(unit))) * unit
}

// setTotal changes the units the run counts to, for a run that learns
// its size as it goes (a study reports done of total).
func (p *progress) setTotal(n int64) {
	p.mu.Lock()
	p.total = n
	p.mu.Unlock()
}
