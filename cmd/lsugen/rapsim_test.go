package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRapsim_JSON: the documented JSON shape, with the exact cells exact.
func TestRapsim_JSON(t *testing.T) {
	code, stdout, stderr := lsugen(t, "rapsim", "--json", "--w", "16,32", "--trials", "200", "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Trials  int    `json:"trials"`
		Seed    uint64 `json:"seed"`
		Results []struct {
			W          int     `json:"w"`
			Array      string  `json:"array"`
			Mapping    string  `json:"mapping"`
			Access     string  `json:"access"`
			Congestion float64 `json:"congestion"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	// Per w: 3 mappings × 4 accesses, then 7 mappings × 7 accesses.
	if doc.Trials != 200 || doc.Seed != 5 || len(doc.Results) != 2*(12+49) {
		t.Fatalf("trials %d, seed %d, %d results", doc.Trials, doc.Seed, len(doc.Results))
	}
	found := 0
	for _, r := range doc.Results {
		if r.Array == "w2" && r.Mapping == "RAW" && r.Access == "stride" {
			found++
			if r.Congestion != float64(r.W) {
				t.Errorf("RAW stride w=%d: %v", r.W, r.Congestion)
			}
		}
		if r.Array == "w2" && r.Mapping == "RAP" && r.Access == "stride" && r.Congestion != 1 {
			t.Errorf("RAP stride w=%d: %v", r.W, r.Congestion)
		}
	}
	if found != 2 {
		t.Errorf("%d RAW stride rows, want 2", found)
	}
}

// TestRapsim_Deterministic: one seed, one output.
func TestRapsim_Deterministic(t *testing.T) {
	args := []string{"rapsim", "--w", "32", "--trials", "300", "--table", "II"}
	_, a, _ := lsugen(t, args...)
	_, b, _ := lsugen(t, args...)
	if a != b || !strings.Contains(a, "RAP") || strings.Contains(a, "R1P") {
		t.Errorf("outputs differ or wrong table:\n%s\n%s", a, b)
	}
}

// TestRapsim_Table: the text table has a column per w and a row per cell.
func TestRapsim_Table(t *testing.T) {
	code, stdout, stderr := lsugen(t, "rapsim", "--w", "16,64", "--trials", "100", "--table", "IV")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"w×w×w×w array (Table IV", "w=16", "w=64", "1Pw2R", "malicious", "RAW     stride1  16.00  64.00"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("%q missing from\n%s", s, stdout)
		}
	}
}

// TestRapsim_InvalidFlags are refused with exit 2 and a message naming the
// problem, before any simulation.
func TestRapsim_InvalidFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--w", "24"}, "w = 24: want a power of two in 2..1024"},
		{[]string{"--w", "2048"}, "w = 2048"},
		{[]string{"--w", "16,x"}, `--w: "x" is not an integer`},
		{[]string{"--trials", "0"}, "trials = 0: want 1..10000000"},
		{[]string{"--trials", "10000001"}, "trials = 10000001"},
		{[]string{"--table", "III"}, `--table "III"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
	} {
		code, stdout, stderr := lsugen(t, append([]string{"rapsim"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestHostile_RapsimWorkBudget: a run estimated over --work-budget (the
// issue's three-hour --trials 10000000, one of two hours at w = 1024) is
// refused before any work, with exit 2 and a message naming the estimate,
// the limit and the flag that lifts it; a negative --work-budget is refused;
// a run within the limit runs.
func TestHostile_RapsimWorkBudget(t *testing.T) {
	for _, c := range []refusalCase{
		{[]string{"--trials", "10000000"}, 2, []string{"estimated at 1h06m of CPU time (268G trial steps, trials x w over 270 cells;", "over the budget of 10m00s (--work-budget; 0 for no limit): make it smaller (--trials, --w or --table) or give --work-budget 2h00m or more to run it"}},
		{[]string{"--w", "1024", "--trials", "10000000", "--table", "IV"}, 2, []string{"estimated at 1h55m of CPU time (430G trial steps"}},
		{[]string{"--trials", "20000", "--work-budget", "1s"}, 2, []string{"estimated at 8s of CPU time", "over the budget of 1s (--work-budget;", "give --work-budget 1m00s or more"}},
		{[]string{"--work-budget", "-1s"}, 2, []string{"--work-budget -1s: want a duration of 0 (no limit) or more"}},
		{[]string{"--w", "16", "--trials", "100", "--table", "II", "--work-budget", "1s"}, 0, nil},
	} {
		checkRefusal(t, "rapsim", c.args, c.code, c.want)
	}
}

// TestRapsim_CancelStops: a run of an hour under --work-budget 0 stops soon
// after its context is cancelled (as SIGINT, SIGTERM and SIGHUP cancel it:
// signals.go), with exit 1 and the cancellation named.
func TestRapsim_CancelStops(t *testing.T) {
	ctx, sinceCancel := cancelIn(t, 300*time.Millisecond)
	code, stdout, stderr, _ := lsugenWithin(t, ctx, 2*time.Minute, "rapsim", "--w", "1024", "--trials", "10000000", "--work-budget", "0")
	took := sinceCancel()
	t.Logf("stopped %v after the cancellation", took)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "rapsim: stopped: context canceled") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// refusalCase is a command line and what it must give: the exit status and
// text that stderr must hold.
type refusalCase struct {
	args []string
	code int
	want []string
}

// checkRefusal runs lsugen CMD ARGS (a minute at most, scaled) and checks its exit
// status and stderr.
func checkRefusal(t *testing.T, cmd string, args []string, code int, want []string) {
	t.Helper()
	got, _, stderr, took := lsugenWithin(t, context.Background(), time.Minute, append([]string{cmd}, args...)...)
	t.Logf("%v: exit %d in %v", args, got, took)
	if got != code {
		t.Errorf("%v: exit %d, want %d: %s", args, got, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%v: %q missing from %s", args, w, stderr)
		}
	}
}
