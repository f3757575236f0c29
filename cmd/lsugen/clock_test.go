package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestClockFO4Flag: --clock-fo4 pipelines the combinational units of a
// spec, leaves clocked ones and the hashes other units instantiate alone,
// and refuses a period out of range; gen refuses --timing-mode without
// it, which in timing chooses the model of the figures alone.
func TestClockFO4Flag(t *testing.T) {
	code, stdout, stderr := lsugen(t, "timing", "--json", "--clock-fo4", "40", "../../specs/arbiter.hcl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Units []struct {
			Name     string `json:"name"`
			Pipeline *struct {
				ClockFO4      float64 `json:"clock_fo4"`
				LatencyCycles int     `json:"latency_cycles"`
			} `json:"pipeline"`
		} `json:"units"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, u := range doc.Units {
		if u.Pipeline != nil && u.Pipeline.ClockFO4 > 0 {
			got[u.Name] = u.Pipeline.LatencyCycles
		}
	}
	// arb_xor_3 is the hash arb_serial_8 instantiates; arb_serial_8
	// serializes (clocked already); arb_mod_8 is combinational.
	if got["arb_mod_8"] < 1 || got["arb_xor_3"] != 0 || got["arb_serial_8"] != 0 {
		t.Errorf("latencies %v: want arb_mod_8 pipelined, arb_xor_3 and arb_serial_8 not", got)
	}
	spec := filepath.Join("..", "..", "specs", "coalescer_small.hcl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--clock-fo4", "3"}, "--clock-fo4 3: want a period from 4 to 10000 FO4"},
		{[]string{"--clock-fo4", "1e9"}, "--clock-fo4 1e+09: want a period"},
		{[]string{"--clock-fo4", "NaN"}, "--clock-fo4 NaN: want a period"},
		{[]string{"--clock-fo4", "40", "--timing-mode", "fast"}, `--timing-mode "fast": want sized, unsized or liberty`},
	} {
		code, _, stderr := lsugen(t, append(append([]string{"timing"}, c.args...), spec)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	if code, _, stderr := lsugen(t, "gen", "-o", t.TempDir(), "--timing-mode", "sized", spec); code != 2 || !strings.Contains(stderr, "give one of them too") {
		t.Errorf("gen --timing-mode without --clock-fo4: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := lsugen(t, "timing", "--timing-mode", "unsized", spec); code != 0 {
		t.Errorf("timing --timing-mode unsized: exit %d, stderr %q", code, stderr)
	}
}

// TestParseClocks: timing's and profile's --clock takes periods in FO4
// or in time units, converted with the FO4 given.
func TestParseClocks(t *testing.T) {
	got, err := parseClocks("40, 1GHz,2ns", 100)
	if err != nil || len(got) != 3 || got[0] != 40 || got[1] != 10 || got[2] != 20 {
		t.Errorf("parseClocks = %v, %v; want [40 10 20]", got, err)
	}
	for _, s := range []string{"0", "1 parsec", "1GHz,", "-2ns", "2e6"} {
		if p, err := parseClocks(s, 100); err == nil {
			t.Errorf("parseClocks(%q) = %v, want an error", s, p)
		}
	}
}
