package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lsugen/lsugen/verify"
)

// verifyPrinter prints each check of lsugen verify as it finishes, one
// plain line, and records its result in the report; on a terminal it
// also keeps a progress line on stderr, redrawn in place and cleared at
// the end. Its methods may be called from several goroutines.
type verifyPrinter struct {
	mu      sync.Mutex
	rep     *verifyReport
	lines   io.Writer // the result lines: stdout, or stderr with --json
	stderr  io.Writer
	live    bool // stderr is a terminal: draw the progress line
	shown   bool // the progress line is on the terminal
	total   int
	done    int
	running map[string]time.Time // "unit/engine" -> when it started
	stream  map[int]bool         // clocked units whose stream line is printed
	stop    chan struct{}
	stopped chan struct{}
}

// newVerifyPrinter prints the lines to lines, and with live a progress
// line on stderr.
func newVerifyPrinter(rep *verifyReport, lines, stderr io.Writer, live bool) *verifyPrinter {
	p := &verifyPrinter{rep: rep, lines: lines, stderr: stderr, live: live,
		running: map[string]time.Time{}, stream: map[int]bool{}}
	for _, u := range rep.Units {
		p.total += len(u.Results)
	}
	if p.live {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(p.stopped)
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

// started notes that a check began.
func (p *verifyPrinter) started(unit int, engine string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[p.rep.Units[unit].Name+"/"+engine] = time.Now()
	p.draw()
}

// finished records a check's result and prints its line; coverage is the
// unit's, when the check made its vectors; detail is printed on stderr
// after the line (a counterexample, an error).
func (p *verifyPrinter) finished(unit int, res verifyResult, coverage, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := &p.rep.Units[unit]
	key := u.Name + "/" + res.Engine
	if t, ok := p.running[key]; ok && res.Seconds == 0 {
		res.Seconds = seconds(time.Since(t))
	}
	delete(p.running, key)
	p.done++
	if coverage != "" {
		u.Coverage = coverage
	}
	for i := range u.Results {
		if u.Results[i].Engine == res.Engine {
			u.Results[i] = res
		}
	}
	p.clear()
	if u.Clocked && u.Coverage != "" && !p.stream[unit] && p.rep.Mode == "simulation" {
		// The stream's coverage is long: one line of its own.
		p.stream[unit] = true
		fmt.Fprintf(p.lines, "%-24s stream: %s\n", u.Name, u.Coverage)
	}
	fmt.Fprintln(p.lines, resultLine(p.rep.Mode, u, res))
	if detail != "" {
		fmt.Fprintf(p.stderr, "lsugen verify: %s\n", detail)
	}
	p.draw()
}

// close stops the progress line and clears it.
func (p *verifyPrinter) close() {
	if p.live {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// draw redraws the progress line: checks done, and the longest running.
func (p *verifyPrinter) draw() {
	if !p.live {
		return
	}
	s := fmt.Sprintf("verify: %d/%d done", p.done, p.total)
	oldest, since := "", time.Time{}
	for k, t := range p.running {
		if oldest == "" || t.Before(since) || t.Equal(since) && k < oldest {
			oldest, since = k, t
		}
	}
	if oldest != "" {
		d := time.Since(since)
		s += fmt.Sprintf(", running: %s %d:%02d", oldest, int(d.Minutes()), int(d.Seconds())%60)
		if n := len(p.running) - 1; n > 0 {
			s += fmt.Sprintf(" (+%d more)", n)
		}
	}
	fmt.Fprint(p.stderr, "\r\033[K"+s)
	p.shown = true
}

// clear erases the progress line before a line is printed.
func (p *verifyPrinter) clear() {
	if p.shown {
		fmt.Fprint(p.stderr, "\r\033[K")
		p.shown = false
	}
}

// resultLine is the plain line of one check: unit, engine, status, time,
// and what was checked, with the failure or the error.
func resultLine(mode string, u *verifyUnit, res verifyResult) string {
	var what string
	switch res.Status {
	case statusError, statusSkipped:
		what = firstLine(res.Error)
	default:
		switch mode {
		case "formal":
			verdict := "equivalent"
			if res.Status == statusFail {
				verdict = "NOT EQUIVALENT (counterexample on stderr)"
			}
			what = res.Method + ": " + verdict
		case "rtl":
			what = fmt.Sprintf("%d %s of %s, module %s", res.Vectors, countWord(u), u.vectorFile, u.Module)
			if res.Status == statusFail {
				what = fmt.Sprintf("module %s: %s", u.Module, res.Failure)
			}
		default:
			cov := u.Coverage
			if u.Clocked {
				cov = "lockstep with the sequential model"
			}
			what = fmt.Sprintf("%d %s, %s", res.Vectors, countWord(u), cov)
			if res.Method != "" {
				what += " (" + res.Method + ")"
			}
			if res.Status == statusFail {
				what += ": " + res.Failure
			}
		}
	}
	elapsed := ""
	if res.Status != statusSkipped {
		elapsed = time.Duration(res.Seconds * float64(time.Second)).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%-24s %-10s %-7s %9s  %s", u.Name, res.Engine, strings.ToUpper(res.Status), elapsed, what)
}

// countWord is what a unit's vector counts count.
func countWord(u *verifyUnit) string {
	if u.Clocked {
		return "cycles"
	}
	return "vectors"
}

// verifyCheck is one check that the command schedules itself (--rtl,
// --formal): one engine on one unit.
type verifyCheck struct {
	unit   int // index in the report's units
	engine string
	// run returns the result and the detail to print on stderr.
	run func(ctx context.Context) (verifyResult, string)
}

// runChecks runs the checks, at most jobs at a time; once ctx is
// cancelled the checks not started are skipped.
func runChecks(ctx context.Context, checks []verifyCheck, jobs int, p *verifyPrinter) {
	verify.Parallel(len(checks), jobs, func(i int) {
		c := checks[i]
		if ctx.Err() != nil {
			p.finished(c.unit, verifyResult{Engine: c.engine, Status: statusSkipped, Error: "interrupted"}, "", "")
			return
		}
		p.started(c.unit, c.engine)
		res, detail := c.run(ctx)
		if ctx.Err() != nil && res.Status == statusError {
			res.Status, res.Error, detail = statusSkipped, "interrupted", ""
		}
		p.finished(c.unit, res, "", detail)
	})
}
