package formal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/toolchain"
)

// jsonCells is a module with a cell of most kinds proc and memory_map
// make, the word-level ones with a model and those techmap maps first
// (comparisons, shifts, a case's $pmux, a multiplier, a memory), signed
// and unsigned, with state.
const jsonCells = `
module t(input clk, input [7:0] a, input [7:0] b, input signed [5:0] s,
         input [2:0] sel, input we, output [7:0] y, output reg [3:0] r,
         output [15:0] m, output z);
  reg [7:0] acc;
  reg [7:0] mem [0:3];
  always @(posedge clk) begin
    acc <= acc + (a ^ b) - {4'd0, sel, 1'b1};
    if (we) mem[sel[1:0]] <= a;
    case (sel)
      3'd0: r <= a[3:0];
      3'd1: r <= b[3:0];
      3'd5: r <= a[7:4] & b[7:4];
      default: r <= r;
    endcase
  end
  assign y = (a < b ? a >> sel : b << sel) ^ acc ^ mem[b[1:0]] ^ a[sel +: 2];
  assign m = a * b + (s < $signed(b[5:0]) ? 16'd1 : 16'd0) + {8'd0, ~|a, &b, ^a, a != b, a == b, !a, a && b, a || b};
  assign z = (s >>> 2) > -6'sd3;
endmodule
`

// TestJSONSide_AsWriteAiger reads the same elaborated module both ways:
// as the graph built here from Yosys's JSON netlist and models
// (graphTail), and as Yosys's own aigmap and write_aiger write it (the
// script the proofs used before). For random inputs and states, every
// output and every flip-flop's next value must agree, matched by name.
func TestJSONSide_AsWriteAiger(t *testing.T) {
	requireYosys(t)
	yosys, err := toolchain.Find("yosys")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.v"), []byte(jsonCells), 0o644); err != nil {
		t.Fatal(err)
	}
	var s []string
	add := func(f string, a ...any) { s = append(s, fmt.Sprintf(f, a...)) }
	add("read_verilog t.v")
	add("hierarchy -check -top t")
	add("proc")
	add("memory_collect")
	add("memory_map")
	add("opt_clean")
	add("design -save elaborated")
	graphTail(add, "t.json")
	add("design -load elaborated")
	add("aigmap")
	add("techmap")
	add("setundef -zero")
	add("aigmap")
	add("write_aiger -symbols t.aig")
	script := filepath.Join(dir, "t.ys")
	if err := os.WriteFile(script, []byte(strings.Join(s, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := yosys.Command(dir, "-q", "-s", script).Run(context.Background()); err != nil {
		t.Fatalf("yosys: %v\n%s", err, res.Output)
	}
	js, err := loadJSONSide("JSON", filepath.Join(dir, "t.json"), "t")
	if err != nil {
		t.Fatal(err)
	}
	ag, err := readAIGFile(filepath.Join(dir, "t.aig"))
	if err != nil {
		t.Fatal(err)
	}
	// write_aiger's symbols: i<N> and o<N> name a port bit, l<N> every
	// wire bit of a latch; NAME for a one-bit wire, NAME[BIT] otherwise.
	bit := func(n string) mapBit {
		if i := strings.LastIndexByte(n, '['); i > 0 && strings.HasSuffix(n, "]") {
			var b int
			if _, err := fmt.Sscanf(n[i+1:len(n)-1], "%d", &b); err == nil {
				return mapBit{n[:i], b}
			}
		}
		return mapBit{n, 0}
	}
	named := func(kind string, count int) map[mapBit]int {
		m := map[mapBit]int{}
		for i := 0; i < count; i++ {
			for _, n := range ag.symbols[fmt.Sprintf("%s%d", kind, i)] {
				m[bit(n)] = i
			}
		}
		return m
	}
	agIn, agOut, agLatch := named("i", ag.inputs), named("o", len(ag.outputs)), named("l", len(ag.latches))
	if len(agIn) != ag.inputs || ag.inputs != js.a.inputs || len(ag.outputs) != len(js.a.outputs) || len(ag.latches) != len(js.a.latches) {
		t.Fatalf("write_aiger: %d inputs (%d named), %d outputs, %d latches; JSON: %d inputs, %d outputs, %d latches",
			ag.inputs, len(agIn), len(ag.outputs), len(ag.latches), js.a.inputs, len(js.a.outputs), len(js.a.latches))
	}
	if len(js.a.latches) < 8+4+32 {
		t.Fatalf("JSON: %d latches, want at least the accumulator's, r's and the memory's 44", len(js.a.latches))
	}
	// Each JSON latch's partner in write_aiger's graph, by any name.
	partner := make([]int, len(js.a.latches))
	for i, names := range js.m.latches {
		partner[i] = -1
		for _, n := range names {
			if l, ok := agLatch[n]; ok {
				partner[i] = l
			}
		}
		if partner[i] < 0 {
			t.Fatalf("JSON latch %v has no latch of those names in write_aiger's graph", names)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sj, sa := js.a.newState(), ag.newState()
	for v := 0; v < 2000; v++ {
		inJ, inA := make([]bool, js.a.inputs), make([]bool, ag.inputs)
		for b, i := range js.in {
			x := rng.IntN(2) == 1
			inJ[i] = x
			ai, ok := agIn[b]
			if !ok {
				t.Fatalf("input %v: not in write_aiger's graph", b)
			}
			inA[ai] = x
		}
		for i, p := range partner {
			x := rng.IntN(2) == 1
			sj.vals[js.a.inputs+1+i], sa.vals[ag.inputs+1+p] = x, x
		}
		sj.eval(inJ)
		sa.eval(inA)
		for b, o := range js.out {
			ao, ok := agOut[b]
			if !ok {
				t.Fatalf("output %v: not in write_aiger's graph", b)
			}
			if sj.output(o) != sa.output(ao) {
				t.Fatalf("vector %d: output %s[%d]: JSON graph %v, write_aiger's %v", v, b.name, b.bit, sj.output(o), sa.output(ao))
			}
		}
		for i, p := range partner {
			if sj.lit(js.a.latches[i].next) != sa.lit(ag.latches[p].next) {
				t.Fatalf("vector %d: next value of flip-flop %v differs", v, js.m.latches[i])
			}
		}
	}
}

// TestJSONSide_BadInput: a netlist that is not what graphTail writes is
// an error, not a panic or a wrong graph.
func TestJSONSide_BadInput(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"not JSON", `{"modules": `, "unexpected end"},
		{"no module", `{"modules": {}}`, "no module t"},
		{"no model", `{"modules": {"t": {"ports": {"a": {"direction": "input", "bits": [2]}, "y": {"direction": "output", "bits": [3]}},
			"cells": {"c": {"type": "$lt", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [2], "Y": [3]}}}}}}`, "has no AIG model"},
		{"undriven", `{"modules": {"t": {"ports": {"y": {"direction": "output", "bits": [3]}}}}}`, "no driver"},
		{"loop", `{"modules": {"t": {"ports": {"y": {"direction": "output", "bits": [3]}},
			"cells": {"c": {"type": "$not", "model": "$not:1U:1", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [3], "Y": [3]}}}}},
			"models": {"$not:1U:1": [ /* 0 */ ["nport", "A", 0, "Y", 0] ]}}`, "combinational loop"},
		{"model drives an input", `{"modules": {"t": {"ports": {"a": {"direction": "input", "bits": [2]}, "y": {"direction": "output", "bits": [3]}},
			"cells": {"c": {"type": "$not", "model": "m", "port_directions": {"A": "input", "Y": "output"}, "connections": {"A": [2], "Y": [3]}}}}},
			"models": {"m": [ ["nport", "A", 0, "A", 0] ]}}`, "no output bit"},
		{"bad node", `{"modules": {"t": {}}, "models": {"m": [ ["and", 3, 4] ]}}`, "bad node"},
		{"huge signal", `{"modules": {"t": {"ports": {"y": {"direction": "output", "bits": [2000000000]}}}}}`, "more than"},
		{"x read", `{"modules": {"t": {"ports": {"y": {"direction": "output", "bits": ["x"]}}}}}`, "undefined"},
	} {
		_, err := parseJSONSide("RTL", []byte(c.text), "t")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// FuzzParseJSONSide: no netlist text panics or hangs the reader.
func FuzzParseJSONSide(f *testing.F) {
	f.Add([]byte(`{"modules": {"t": {"ports": {"a": {"direction": "input", "bits": [2, 3]}, "y": {"direction": "output", "bits": [4, "1"]}},
		"cells": {"c": {"type": "$and", "model": "m", "port_directions": {"A": "input", "B": "input", "Y": "output"}, "connections": {"A": [2], "B": [3], "Y": [4]}},
		"f": {"type": "$dff", "port_directions": {"CLK": "input", "D": "input", "Q": "output"}, "connections": {"CLK": [2], "D": [4], "Q": [5]}}},
		"netnames": {"q": {"hide_name": 0, "bits": [5]}}}},
		"models": {"m": [ /* 0 */ ["port", "A", 0], /* 1 */ ["port", "B", 0], /* 2 */ ["and", 0, 1, "Y", 0] ]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseJSONSide("RTL", b, "t")
		if err == nil && (s.a == nil || len(s.a.outputs) != len(s.out)) {
			t.Fatalf("a graph with %d outputs for %d output bits", len(s.a.outputs), len(s.out))
		}
	})
}
