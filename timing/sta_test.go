package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// gate is shorthand for a netlist.Gate literal.
func gate(k netlist.Kind, out netlist.Net, in ...netlist.Net) netlist.Gate {
	return netlist.Gate{Kind: k, In: in, Out: out}
}

func port(name string, dir netlist.Dir, bits ...netlist.Net) netlist.Port {
	return netlist.Port{Name: name, Dir: dir, Bits: bits}
}

func analyze(t *testing.T, d *netlist.Design, opt Options) *Result {
	t.Helper()
	r, err := Analyze(d, opt)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", d.Name, err)
	}
	return r
}

// near compares reported (4-decimal) numbers.
func near(got, want float64) bool { return math.Abs(got-want) < 1e-9 }

func checkPath(t *testing.T, r *Result, gates ...string) {
	t.Helper()
	var got []string
	for _, s := range r.CriticalPath {
		got = append(got, s.Gate)
	}
	if !reflect.DeepEqual(got, gates) {
		t.Errorf("critical path %v, want %v\n%s", got, gates, r)
	}
}

func TestCells_Table(t *testing.T) {
	for k := range netlist.NumKinds {
		kind := netlist.Kind(k)
		c := &Cells[k]
		if len(c.G) != kind.Arity() || len(c.Cin) != kind.Arity() {
			t.Errorf("%s: %d efforts, %d caps, arity %d", kind, len(c.G), len(c.Cin), kind.Arity())
			continue
		}
		for i := range c.G {
			// Unit drive: a pin's capacitance equals its logical effort.
			if c.G[i] <= 0 || c.Cin[i] != c.G[i] {
				t.Errorf("%s pin %d: g %v, Cin %v", kind, i, c.G[i], c.Cin[i])
			}
		}
		if c.P <= 0 || c.Area <= 0 || c.Transistors <= 0 {
			t.Errorf("%s: p %v area %v transistors %d", kind, c.P, c.Area, c.Transistors)
		}
	}
	if a := Cells[netlist.NAND2].Area; a != 1 {
		t.Errorf("NAND2 area %v GE, want 1", a)
	}
	if d := Cells[netlist.INV].Delay(0, 4); d != TauPerFO4 {
		t.Errorf("FO4 inverter: %v tau, want %v", d, TauPerFO4)
	}
	// AND2 = NAND2 driving a unit inverter (1 + 2) then the inverter.
	if d := Cells[netlist.AND2].Delay(1, 4); !near(d, 4+(1+2)+1) {
		t.Errorf("AND2 into 4: %v tau, want 8", d)
	}
}

// fo4Design is a -> INV g0 -> four INVs -> y[3:0]: g0 is the FO4 stage.
func fo4Design() *netlist.Design {
	return &netlist.Design{
		Name:    "fo4",
		NumNets: 8,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 4, 5, 6, 7)},
		Gates: []netlist.Gate{
			gate(netlist.INV, 3, 2),
			gate(netlist.INV, 4, 3), gate(netlist.INV, 5, 3), gate(netlist.INV, 6, 3), gate(netlist.INV, 7, 3),
		},
	}
}

// One inverter driving four unit inverters is exactly one FO4.
func TestSTA_InverterFO4(t *testing.T) {
	d := fo4Design()
	r := analyze(t, d, leOptions())
	checkPath(t, r, "input", "g0", "g1")
	s := r.CriticalPath[1]
	if s.Delay != 1.0 || s.Load != 4 || s.Fanout != 4 || s.From != "a" || s.Net != "n3" || s.Cell != "INV" {
		t.Errorf("FO4 stage %+v, want delay 1 FO4 with load 4 and fanout 4", s)
	}
	// Driver: 1·1 + 1 = 2τ; FO4 stage 5τ; last inverter 1·1 + 1 = 2τ.
	if r.Tau != 9 || r.FO4 != 1.8 || r.Depth != 2 || r.Endpoint != "y[0]" {
		t.Errorf("tau %v fo4 %v depth %d endpoint %q, want 9, 1.8, 2, y[0]", r.Tau, r.FO4, r.Depth, r.Endpoint)
	}
	if got := []float64{r.CriticalPath[0].Arrival, r.CriticalPath[1].Arrival, r.CriticalPath[2].Arrival}; !reflect.DeepEqual(got, []float64{0.4, 1.4, 1.8}) {
		t.Errorf("arrivals %v FO4, want [0.4 1.4 1.8]", got)
	}
}

// chain returns a -> INV -> ... -> INV -> y with n inverters.
func chain(n int) *netlist.Design {
	d := &netlist.Design{Name: "chain", NumNets: 3 + n}
	for i := range n {
		d.Gates = append(d.Gates, gate(netlist.INV, netlist.Net(3+i), netlist.Net(2+i)))
	}
	d.Ports = []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, netlist.Net(2+n))}
	return d
}

func TestSTA_InverterChain(t *testing.T) {
	// Driver 2τ, then 2τ per inverter (each drives one unit inverter or
	// the unit output load).
	r := analyze(t, chain(5), leOptions())
	if r.Tau != 12 || r.FO4 != 2.4 || r.Depth != 5 || len(r.CriticalPath) != 6 {
		t.Errorf("5 inverters: tau %v fo4 %v depth %d, want 12, 2.4, 5\n%s", r.Tau, r.FO4, r.Depth, r)
	}
	for i, s := range r.CriticalPath {
		if s.Delay != 0.4 {
			t.Errorf("stage %d delay %v FO4, want 0.4", i, s.Delay)
		}
	}
	// A double-size driver (1/2 + 1) and an output load of 4 (4 + 1).
	r = analyze(t, chain(5), Options{DriverSize: 2, OutputLoad: 4, Mode: Unsized})
	if want := 1.5 + 4*2 + 5; r.Tau != want || r.FO4 != 2.9 {
		t.Errorf("sized chain: tau %v fo4 %v, want %v, 2.9", r.Tau, r.FO4, want)
	}
	if s := r.CriticalPath[0]; s.Delay != 0.3 || s.Gate != "input" || s.From != "" || s.Net != "a" {
		t.Errorf("driver step %+v, want 1.5τ = 0.3 FO4", s)
	}
}

func TestSTA_NAND2KnownLoad(t *testing.T) {
	d := &netlist.Design{
		Name:    "nand",
		NumNets: 5,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("b", netlist.In, 3), port("y", netlist.Out, 4)},
		Gates:   []netlist.Gate{gate(netlist.NAND2, 4, 2, 3)},
	}
	r := analyze(t, d, Options{DriverSize: 1, OutputLoad: 3, Mode: Unsized})
	// Inputs: load 4/3, driver 4/3 + 1 = 7/3τ, a and b tie: a (lower net).
	// NAND2: g·h + p = 4/3 · 3/(4/3) + 2 = 5τ = 1 FO4.
	checkPath(t, r, "input", "g0")
	if s := r.CriticalPath[0]; s.Net != "a" || s.Load != 1.3333 || s.Delay != 0.4667 {
		t.Errorf("driver %+v, want net a, load 1.3333, delay 0.4667", s)
	}
	if s := r.CriticalPath[1]; s.Delay != 1 || s.Load != 3 || s.From != "a" {
		t.Errorf("NAND2 %+v, want 1 FO4 from a with load 3", s)
	}
	if r.Tau != 7.3333 || r.FO4 != 1.4667 {
		t.Errorf("tau %v fo4 %v, want 7.3333 (22/3), 1.4667", r.Tau, r.FO4)
	}
}

// The worst input pin decides, not the first pin or the first endpoint.
func TestSTA_SecondLongestInputLoses(t *testing.T) {
	for _, swap := range []bool{false, true} {
		// b -> INV -> w (short); a -> INV -> INV -> INV -> x (long);
		// y = NAND2(w, x); z = w.
		nand := gate(netlist.NAND2, 9, 5, 8)
		if swap {
			nand = gate(netlist.NAND2, 9, 8, 5)
		}
		d := &netlist.Design{
			Name:    "race",
			NumNets: 10,
			Ports: []netlist.Port{
				port("b", netlist.In, 2), port("a", netlist.In, 3), port("c", netlist.In, 4),
				port("z", netlist.Out, 5), port("y", netlist.Out, 9),
			},
			Gates: []netlist.Gate{
				gate(netlist.INV, 5, 2),
				gate(netlist.INV, 6, 3), gate(netlist.INV, 7, 6), gate(netlist.INV, 8, 7),
				nand,
			},
		}
		r := analyze(t, d, leOptions())
		checkPath(t, r, "input", "g1", "g2", "g3", "g4")
		// a: 2; two inverters 2 + 2; the third drives 4/3: 7/3; NAND2
		// into 1: 1 + 2. Total 34/3τ. (Via b: 2 + (4/3 + 1 + 1) + 3.)
		if r.Tau != 11.3333 || r.FO4 != 2.2667 || r.Depth != 4 || r.Endpoint != "y" {
			t.Errorf("swap=%v: tau %v fo4 %v depth %d endpoint %s, want 11.3333, 2.2667, 4, y", swap, r.Tau, r.FO4, r.Depth, r.Endpoint)
		}
		if s := r.CriticalPath[4]; s.From != "n8" || s.Net != "y" {
			t.Errorf("swap=%v: NAND2 step %+v, want from n8", swap, s)
		}
	}
}

func TestSTA_TiesGoToLowestNet(t *testing.T) {
	// Two identical paths into an XOR2; the lower input net wins whatever
	// the pin order.
	for _, in := range [][2]netlist.Net{{4, 5}, {5, 4}} {
		d := &netlist.Design{
			Name:    "tie",
			NumNets: 7,
			Ports:   []netlist.Port{port("a", netlist.In, 2, 3), port("y", netlist.Out, 6)},
			Gates:   []netlist.Gate{gate(netlist.INV, 5, 3), gate(netlist.INV, 4, 2), gate(netlist.XOR2, 6, in[0], in[1])},
		}
		r := analyze(t, d, leOptions())
		checkPath(t, r, "input", "g1", "g2")
		if r.CriticalPath[0].Net != "a[0]" {
			t.Errorf("pins %v: path starts at %s, want a[0]", in, r.CriticalPath[0].Net)
		}
	}
}

// areaDesign: NAND2, INV, XOR2, MUX2 and a DFF whose Q is read before the
// DFF appears in the gate list.
func areaDesign() *netlist.Design {
	// nets: a 2, b 3, s 4, n 5, m 6, x 7, y 8, q 9
	return &netlist.Design{
		Name:    "small",
		NumNets: 10,
		Clock:   "clk_i",
		Ports: []netlist.Port{
			port("a", netlist.In, 2), port("b", netlist.In, 3), port("s", netlist.In, 4),
			port("y", netlist.Out, 8),
		},
		Gates: []netlist.Gate{
			gate(netlist.NAND2, 5, 2, 3),
			gate(netlist.INV, 6, 5),
			gate(netlist.XOR2, 7, 6, 9),
			gate(netlist.MUX2, 8, 4, 7, 2),
			gate(netlist.DFF, 9, 8),
		},
	}
}

func TestSTA_AreaAndTransistors(t *testing.T) {
	r := analyze(t, areaDesign(), leOptions())
	// GE: NAND2 1 + INV 4/6 + XOR2 14/6 + MUX2 14/6 + DFF 17/3 = 12.
	if r.AreaGE != 12 || r.Transistors != 4+2+12+12+24 || r.Gates != 5 {
		t.Errorf("area %v GE, %d transistors, %d gates; want 12, 54, 5", r.AreaGE, r.Transistors, r.Gates)
	}
	want := map[string]int{"NAND2": 1, "INV": 1, "XOR2": 1, "MUX2": 1, "DFF": 1}
	if !reflect.DeepEqual(r.GatesByKind, want) {
		t.Errorf("gates by kind %v, want %v", r.GatesByKind, want)
	}
	// Loads: a 4/3 + 2, b 4/3, s 4, n 1, m 4, q 4, x 2, y 1 + 1.
	// a arrives 13/3, q (clock-to-Q) 4 + 7 = 11; n = 13/3 + 3; m = +5;
	// x = max(m, q) + 6; y = max(s 5, x, a) + 8 = 79/3.
	checkPath(t, r, "input", "g0", "g1", "g2", "g3")
	if r.Tau != 26.3333 || r.FO4 != 5.2667 || r.Depth != 4 || r.Endpoint != "y" {
		t.Errorf("tau %v fo4 %v depth %d endpoint %s, want 26.3333, 5.2667, 4, y\n%s", r.Tau, r.FO4, r.Depth, r.Endpoint, r)
	}
	if s := r.CriticalPath[0]; s.Load != 3.3333 || s.Fanout != 2 {
		t.Errorf("input a: %+v, want load 3.3333 over 2 pins", s)
	}
}

func TestSTA_DFFStartAndEnd(t *testing.T) {
	// Start: q -> INV -> x -> DFF D and output y. The INV comes first.
	d := &netlist.Design{
		Name:    "toggle",
		NumNets: 5,
		Clock:   "clk_i",
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 4)},
		Gates:   []netlist.Gate{gate(netlist.INV, 4, 3), gate(netlist.DFF, 3, 4)},
	}
	r := analyze(t, d, leOptions())
	// q: load 1, 1 + 7 = 8τ; INV into DFF D + output: 2 + 1.
	checkPath(t, r, "g1", "g0")
	if s := r.CriticalPath[0]; s.Cell != "DFF" || s.From != "clk_i" || s.Delay != 1.6 {
		t.Errorf("DFF step %+v, want clock-to-Q 1.6 FO4 from clk_i", s)
	}
	if r.Tau != 11 || r.Depth != 1 || r.Endpoint != "y" {
		t.Errorf("tau %v depth %d endpoint %s, want 11, 1, y", r.Tau, r.Depth, r.Endpoint)
	}

	// End: a -> 4 inverters -> DFF D; the output is the DFF's Q.
	d = chain(4)
	d.NumNets++
	d.Gates = append(d.Gates, gate(netlist.DFF, 7, 6))
	d.Ports[1].Bits = netlist.Bus{7}
	r = analyze(t, d, leOptions())
	// D: 2 + 4·2 = 10τ; Q: 1 + 7 = 8τ.
	checkPath(t, r, "input", "g0", "g1", "g2", "g3")
	if r.Tau != 10 || r.Endpoint != "g4.D" {
		t.Errorf("tau %v endpoint %s, want 10 at g4.D", r.Tau, r.Endpoint)
	}
}

func TestSTA_InputStraightToOutput(t *testing.T) {
	d := &netlist.Design{
		Name:    "wire",
		NumNets: 3,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 2, netlist.Const1)},
	}
	r := analyze(t, d, Options{DriverSize: 4, OutputLoad: 2, Mode: Unsized})
	// Driver of size 4 into 2: 2/4 + 1 = 1.5τ.
	checkPath(t, r, "input")
	if r.Tau != 1.5 || r.FO4 != 0.3 || r.Depth != 0 || r.Endpoint != "y[0]" || r.AreaGE != 0 || r.Gates != 0 {
		t.Errorf("%+v", r)
	}
}

func TestSTA_ConstantOutputsOnly(t *testing.T) {
	d := &netlist.Design{
		Name:    "tie",
		NumNets: 3,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, netlist.Const0, netlist.Const1)},
	}
	r := analyze(t, d, leOptions())
	if r.Tau != 0 || len(r.CriticalPath) != 0 || r.CriticalPath == nil || r.Endpoint != "y[0]" {
		t.Errorf("%+v", r)
	}
}

func TestSTA_Errors(t *testing.T) {
	noOut := &netlist.Design{Name: "sink", NumNets: 3, Ports: []netlist.Port{port("a", netlist.In, 2)}}
	if _, err := Analyze(noOut, leOptions()); err == nil || !strings.Contains(err.Error(), "no outputs") {
		t.Errorf("no outputs: err %v", err)
	}
	// g0 reads the output of g1: acyclic, but not in topological order.
	unordered := &netlist.Design{
		Name:    "unordered",
		NumNets: 5,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 4)},
		Gates:   []netlist.Gate{gate(netlist.INV, 4, 3), gate(netlist.INV, 3, 2)},
	}
	if _, err := Analyze(unordered, leOptions()); err == nil || !strings.Contains(err.Error(), "topological") {
		t.Errorf("unordered gates: err %v", err)
	}
	cyclic := &netlist.Design{
		Name:    "loop",
		NumNets: 5,
		Ports:   []netlist.Port{port("y", netlist.Out, 4)},
		Gates:   []netlist.Gate{gate(netlist.INV, 4, 3), gate(netlist.INV, 3, 4)},
	}
	if _, err := Analyze(cyclic, leOptions()); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: err %v", err)
	}
	for _, o := range []Options{{}, {DriverSize: -1, OutputLoad: 1}, {DriverSize: 1, OutputLoad: math.NaN()},
		{DriverSize: math.Inf(1), OutputLoad: 1}, {DriverSize: 1, OutputLoad: -1}} {
		if _, err := Analyze(chain(1), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := Analyze(nil, leOptions()); err == nil {
		t.Error("nil design accepted")
	}
}

func TestSTA_UnloadedOutputs(t *testing.T) {
	// OutputLoad 0: the last inverter has only its parasitic delay.
	r := analyze(t, chain(3), Options{DriverSize: 1, OutputLoad: 0, Mode: Unsized})
	if r.Tau != 2+2+2+1 {
		t.Errorf("tau %v, want 7\n%s", r.Tau, r)
	}
	// An input wired straight to an output: the driver's parasitic only.
	d := &netlist.Design{
		Name:    "wire",
		NumNets: 3,
		Ports:   []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 2)},
	}
	if r := analyze(t, d, Options{DriverSize: 1, Mode: Unsized}); r.Tau != 1 || r.CriticalPath[0].Load != 0 || r.CriticalPath[0].Fanout != 1 {
		t.Errorf("unloaded wire: %+v", r)
	}
}

// allToAll is lanes addresses of width bits; unique_o[i] = no later lane has
// lane i's address.
func allToAll(lanes, width int) *netlist.Builder {
	b := netlist.NewBuilder(fmt.Sprintf("all_to_all_%dx%d", lanes, width))
	addr := b.Input("addr_i", lanes*width, "lane i's address is bits [i*width +: width]")
	lane := func(i int) netlist.Bus { return addr[i*width : (i+1)*width] }
	uniq := make(netlist.Bus, lanes)
	for i := range lanes {
		var eq []netlist.Net
		for j := i + 1; j < lanes; j++ {
			eq = append(eq, b.Equal(lane(i), lane(j)))
		}
		uniq[i] = b.Nor(eq...)
	}
	b.Output("unique_o", uniq, "lane i's address differs from every later lane's")
	return b
}

func build(tb testing.TB, b *netlist.Builder) *netlist.Design {
	tb.Helper()
	d, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestSTA_Deterministic(t *testing.T) {
	// Many equal paths: the ties must resolve the same way every time,
	// and for an identically rebuilt design.
	r1 := analyze(t, build(t, allToAll(8, 8)), leOptions())
	r2 := analyze(t, build(t, allToAll(8, 8)), leOptions())
	j1, _ := json.Marshal(r1)
	j2, _ := json.Marshal(r2)
	if !reflect.DeepEqual(r1, r2) || string(j1) != string(j2) || r1.String() != r2.String() {
		t.Fatalf("two runs differ:\n%s\n%s", j1, j2)
	}
	// Lane 0 compares with 7 lanes: its address bits have the largest
	// load, and the lowest net (addr_i[0]) wins the tie.
	if s := r1.CriticalPath[0]; s.Net != "addr_i[0]" || s.Fanout != 7 || r1.Endpoint != "unique_o[0]" {
		t.Errorf("start %+v endpoint %s\n%s", s, r1.Endpoint, r1)
	}
}

func TestSTA_JSON(t *testing.T) {
	r := analyze(t, areaDesign(), leOptions())
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(j)
	for _, want := range []string{
		`"design":"small"`, `"tau":26.3333`, `"fo4":5.2667`, `"area_ge":12`, `"transistors":54`,
		`"gates":5`, `"gates_by_kind":{"DFF":1,"INV":1,"MUX2":1,"NAND2":1,"XOR2":1}`, `"depth":4`,
		`"endpoint":"y"`, `"critical_path":[{"gate":"input","cell":"INV","from":"","net":"a","fanout":2,"load":3.3333,"delay":0.8667,"arrival":0.8667}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	var back Result
	if err := json.Unmarshal(j, &back); err != nil || !reflect.DeepEqual(&back, r) {
		t.Errorf("JSON round trip: %v\n%+v\n%+v", err, back, *r)
	}
}

func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		build(b, allToAll(64, 32))
	}
}

func BenchmarkAnalyze_AllToAllComparator(b *testing.B) {
	d := build(b, allToAll(64, 32))
	var r *Result
	for b.Loop() {
		var err error
		if r, err = Analyze(d, leOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(d.Gates)), "gates")
	b.ReportMetric(r.FO4, "FO4")
}

// leOptions is DefaultOptions with free wires: the textbook logical-effort
// model the hand-derived figures of these tests follow.
func leOptions() Options {
	o := DefaultOptions()
	o.Wire = Wire{}
	return o
}

// TestWire_LoadAndFO4Unit derives a wire-loaded stage by hand: an inverter
// chain of two, CapPerFanout 2 and no area term. The FO4 unit becomes
// 4·(1+2)+1 = 13τ, and an inverter driving four inverters is exactly 1 FO4.
func TestWire_LoadAndFO4Unit(t *testing.T) {
	o := leOptions()
	o.Wire = Wire{CapPerFanout: 2}
	r := analyze(t, chain(2), o)
	// input: load 1 + 2 = 3, 3 + 1 = 4τ; g0: 4τ; g1 drives the output
	// (1 + 2 wire): 4τ. 12τ / 13.
	if r.TauPerFO4 != 13 || r.Tau != 12 || r.FO4 != round4(12.0/13) {
		t.Errorf("tau %v, fo4 %v, tau/FO4 %v; want 12, %v, 13", r.Tau, r.FO4, r.TauPerFO4, round4(12.0/13))
	}
	// g0 drives four inverters: load 4 + 4·2 = 12, delay 13τ: one FO4.
	d := fo4Design()
	if s := analyze(t, d, o).CriticalPath[1]; s.Delay != 1 || s.Load != 12 {
		t.Errorf("FO4 stage %+v: want delay 1 FO4, load 12", s)
	}
}

// TestWire_AreaTerm: the area term scales with (A/RefAreaGE)^AreaExponent.
func TestWire_AreaTerm(t *testing.T) {
	w := Wire{CapPerFanout: 1, AreaCapPerFanout: 3, RefAreaGE: 100, AreaExponent: 0.5}
	if got := w.perFanout(400); got != 1+3*2 {
		t.Errorf("perFanout(400) = %v, want 7", got)
	}
	if got := (Wire{CapPerFanout: 1}).perFanout(1e9); got != 1 {
		t.Errorf("no area term: %v, want 1", got)
	}
	for _, bad := range []Wire{{CapPerFanout: -1}, {AreaCapPerFanout: 1}, {AreaExponent: math.Inf(1)}} {
		o := DefaultOptions()
		o.Wire = bad
		if _, err := Analyze(chain(2), o); err == nil {
			t.Errorf("wire %+v accepted", bad)
		}
	}
}
