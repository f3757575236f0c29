package main

import (
	"bytes"
	"context"
	"github.com/lsugen/lsugen/internal/testenv"
	"strings"
	"testing"
	"time"
)

// TestProgress_FakeClock: on a terminal the line appears after 2 s (from
// the first second for a run expected to be long), is redrawn in place at
// most once a second with done/total, percent, elapsed and ETA, and is
// erased by Stop; elsewhere a plain line every 10 s; --quiet prints
// nothing.
func TestProgress_FakeClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	const cr = "\r\033[K"

	var b bytes.Buffer
	p := newProgress(&b, false, true, "lsugen x", "steps", 1000, time.Second, t0)
	p.Add(250)
	p.tick(at(time.Second))
	if b.Len() != 0 {
		t.Errorf("a line within 2 s of a short run: %q", b.String())
	}
	p.tick(at(2 * time.Second))
	p.tick(at(2500 * time.Millisecond)) // within a second of the last line
	p.Add(250)
	p.tick(at(3 * time.Second))
	p.Add(500)
	p.tick(at(4 * time.Second))
	p.Stop()
	p.tick(at(5 * time.Second)) // after Stop: nothing
	want := cr + "lsugen x: 250/1000 steps (25%), 2s elapsed, ETA 6s" +
		cr + "lsugen x: 500/1000 steps (50%), 3s elapsed, ETA 3s" +
		cr + "lsugen x: 1000/1000 steps (100%), 4s elapsed" + cr
	if b.String() != want {
		t.Errorf("terminal:\n got %q\nwant %q", b.String(), want)
	}

	b.Reset()
	p = newProgress(&b, false, true, "lsugen x", "steps", 4_000_000, time.Minute, t0)
	p.Add(1_500_000)
	p.tick(at(time.Second))
	if want := cr + "lsugen x: 1.50M/4.00M steps (37%), 1s elapsed, ETA 2s"; b.String() != want {
		t.Errorf("expected long, first second:\n got %q\nwant %q", b.String(), want)
	}

	b.Reset()
	p = newProgress(&b, false, false, "lsugen x", "warp instructions", 600, time.Hour, t0)
	for s := 1; s <= 25; s++ {
		p.Add(10)
		p.tick(at(time.Duration(s) * time.Second))
	}
	p.Stop()
	want = "lsugen x: 100/600 warp instructions (16%), 10s elapsed, ETA 50s\n" +
		"lsugen x: 200/600 warp instructions (33%), 20s elapsed, ETA 40s\n"
	if b.String() != want {
		t.Errorf("not a terminal:\n got %q\nwant %q", b.String(), want)
	}

	// One long unit of work (a pipelining): until it ends, no rate to
	// measure, so the line shows the estimate the run was admitted with.
	b.Reset()
	p = newProgress(&b, false, false, "lsugen gen", "pipelinings", 1, 66*time.Second, t0)
	for s := 1; s <= 10; s++ {
		p.tick(at(time.Duration(s) * time.Second))
	}
	if want := "lsugen gen: 0/1 pipelinings (0%), 10s elapsed, estimated 1m06s in all\n"; b.String() != want {
		t.Errorf("nothing done yet:\n got %q\nwant %q", b.String(), want)
	}

	b.Reset()
	p = newProgress(&b, true, true, "lsugen x", "steps", 10, time.Hour, t0)
	for s := 1; s <= 20; s++ {
		p.tick(at(time.Duration(s) * time.Second))
	}
	p.Stop()
	if b.Len() != 0 {
		t.Errorf("--quiet printed %q", b.String())
	}
}

// TestProgress_Formats: counts and durations as the line and the
// refusals write them.
func TestProgress_Formats(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 9999: "9999", 12345: "12.3k", 4194304: "4.19M", 25_800_000_000: "25.8G", 268_000_000_000: "268G"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		time.Nanosecond: "1ns", 250 * time.Millisecond: "250ms", 45 * time.Second: "45s", 187 * time.Second: "3m07s",
		125 * time.Minute: "2h05m", 10 * time.Minute: "10m00s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]time.Duration{
		18*time.Minute + 9*time.Second: 19 * time.Minute, 66 * time.Minute: 2 * time.Hour, time.Minute: time.Minute,
	} {
		if got := roundUpDuration(d); got != want {
			t.Errorf("roundUpDuration(%v) = %v, want %v", d, got, want)
		}
	}
	if !strings.Contains(formatDuration(roundUpDuration(66*time.Minute)), "2h00m") {
		t.Error("2h suggestion")
	}
}

// lsugenWithin runs lsugen args under ctx and fails the test when it has
// not returned within limit, scaled by testenv.Limit (a run that was to be refused, or stopped,
// and goes on working instead); it returns how long the run took.
func lsugenWithin(t *testing.T, ctx context.Context, limit time.Duration, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	limit = testenv.Limit(limit)
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var o, e bytes.Buffer
		c := runContext(ctx, args, &o, &e)
		done <- result{c, o.String(), e.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err, time.Since(start)
	case <-time.After(limit):
		t.Fatalf("lsugen %s: still running after %v", strings.Join(args, " "), limit)
	}
	return
}

// cancelIn cancels a run's context after d; sinceCancel is how long ago
// that was, or fails the test if the run ended before.
func cancelIn(t *testing.T, d time.Duration) (ctx context.Context, sinceCancel func() time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	at := make(chan time.Time, 1)
	time.AfterFunc(d, func() { at <- time.Now(); cancel() })
	return ctx, func() time.Duration {
		select {
		case c := <-at:
			return time.Since(c)
		default:
			t.Fatalf("the run ended before its cancellation")
			return 0
		}
	}
}
