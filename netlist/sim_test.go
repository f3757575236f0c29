package netlist

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// truth is each combinational kind's function over its pins in netlist
// order, written out by hand apart from Kinds (TestKinds_TruthColumn).
var truth = map[Kind]func(in []bool) bool{
	INV:   func(in []bool) bool { return !in[0] },
	BUF:   func(in []bool) bool { return in[0] },
	NAND2: func(in []bool) bool { return !(in[0] && in[1]) },
	NAND3: func(in []bool) bool { return !(in[0] && in[1] && in[2]) },
	NAND4: func(in []bool) bool { return !(in[0] && in[1] && in[2] && in[3]) },
	NOR2:  func(in []bool) bool { return !(in[0] || in[1]) },
	NOR3:  func(in []bool) bool { return !(in[0] || in[1] || in[2]) },
	NOR4:  func(in []bool) bool { return !(in[0] || in[1] || in[2] || in[3]) },
	AND2:  func(in []bool) bool { return in[0] && in[1] },
	AND3:  func(in []bool) bool { return in[0] && in[1] && in[2] },
	AND4:  func(in []bool) bool { return in[0] && in[1] && in[2] && in[3] },
	OR2:   func(in []bool) bool { return in[0] || in[1] },
	OR3:   func(in []bool) bool { return in[0] || in[1] || in[2] },
	OR4:   func(in []bool) bool { return in[0] || in[1] || in[2] || in[3] },
	XOR2:  func(in []bool) bool { return in[0] != in[1] },
	XNOR2: func(in []bool) bool { return in[0] == in[1] },
	AOI21: func(in []bool) bool { return !(in[0] && in[1] || in[2]) },   // A1 A2 B
	OAI21: func(in []bool) bool { return !((in[0] || in[1]) && in[2]) }, // A1 A2 B
	MUX2: func(in []bool) bool { // S A0 A1
		if in[0] {
			return in[2]
		}
		return in[1]
	},
}

func TestSim_MatchesTruthTable(t *testing.T) {
	for k := range Kind(NumKinds) {
		if k == DFF {
			continue
		}
		f, ok := truth[k]
		if !ok {
			t.Errorf("%s: no truth table in the test", k)
			continue
		}
		n := k.Arity()
		// One gate over n input ports; lane l applies input combination l.
		d := &Design{Name: k.String(), NumNets: 2 + n + 1}
		in := make([]Net, n)
		for i := range in {
			in[i] = Net(2 + i)
			d.Ports = append(d.Ports, Port{Name: fmt.Sprintf("i%d", i), Dir: In, Bits: Bus{in[i]}})
		}
		out := Net(2 + n)
		d.Ports = append(d.Ports, Port{Name: "y", Dir: Out, Bits: Bus{out}})
		d.Gates = []Gate{{Kind: k, In: in, Out: out}}
		if err := d.Check(); err != nil {
			t.Fatal(err)
		}
		s := NewSim(d)
		for i := range n {
			var w uint64
			for l := range 1 << n {
				w |= uint64(l>>i&1) << l
			}
			s.SetInput(i, []uint64{w})
		}
		s.Eval()
		y := make([]uint64, 1)
		s.Output(n, y)
		for l := range 1 << n {
			args := make([]bool, n)
			for i := range args {
				args[i] = l>>i&1 == 1
			}
			if got, want := y[0]>>l&1 == 1, f(args); got != want {
				t.Errorf("%s%v = %v, want %v (%s)", k, args, got, want, k.Func())
			}
		}
	}
}

// evalGates is a straightforward per-vector interpreter of d's gates.
func evalGates(d *Design, inputs map[Net]bool) []bool {
	v := make([]bool, d.NumNets)
	v[Const1] = true
	for n, b := range inputs {
		v[n] = b
	}
	for _, g := range d.Gates {
		args := make([]bool, len(g.In))
		for i, n := range g.In {
			args[i] = v[n]
		}
		v[g.Out] = truth[g.Kind](args)
	}
	return v
}

// randomDesign builds a random design with the builder, mixing constants,
// repeated operands and complements to exercise folding and sharing. It
// returns the design and a per-vector reference model of the same ops over
// the input bits (port order).
func randomDesign(r *rand.Rand, nIn, nOps int) (*Design, func(in []bool) []bool, error) {
	b := NewBuilder("random")
	type sig struct {
		net  Net
		eval func(v []bool) bool // over the signal values so far
	}
	var pool []sig
	var inNets Bus
	for p := range 3 {
		w := (nIn + p) / 3
		inNets = append(inNets, b.Input(fmt.Sprintf("in%d", p), w, "")...)
	}
	// vals[i] of signal i; inputs come first.
	for i, n := range inNets {
		pool = append(pool, sig{n, func(v []bool) bool { return v[i] }})
	}
	pool = append(pool,
		sig{Const0, func([]bool) bool { return false }},
		sig{Const1, func([]bool) bool { return true }})
	pick := func() int {
		if r.IntN(4) == 0 { // favour recent signals: deeper logic
			return len(pool) - 1 - r.IntN(min(len(pool), 4))
		}
		return r.IntN(len(pool))
	}
	picks := func(n int) ([]int, Bus) {
		idx := make([]int, n)
		nets := make(Bus, n)
		for i := range idx {
			idx[i] = pick()
			nets[i] = pool[idx[i]].net
		}
		return idx, nets
	}
	val := func(v []bool, idx []int) []bool {
		out := make([]bool, len(idx))
		for i, j := range idx {
			out[i] = v[j]
		}
		return out
	}
	all := func(x []bool) bool {
		for _, b := range x {
			if !b {
				return false
			}
		}
		return true
	}
	any := func(x []bool) bool {
		for _, b := range x {
			if b {
				return true
			}
		}
		return false
	}
	parity := func(x []bool) bool {
		p := false
		for _, b := range x {
			p = p != b
		}
		return p
	}
	for range nOps {
		var s sig
		switch op := r.IntN(14); op {
		case 0:
			i, n := picks(1)
			s = sig{b.Not(n[0]), func(v []bool) bool { return !v[i[0]] }}
		case 1:
			i, n := picks(1)
			s = sig{b.Buf(n[0]), func(v []bool) bool { return v[i[0]] }}
		case 2, 3, 4, 5:
			i, n := picks(r.IntN(8))
			switch op {
			case 2:
				s = sig{b.And(n...), func(v []bool) bool { return all(val(v, i)) }}
			case 3:
				s = sig{b.Or(n...), func(v []bool) bool { return any(val(v, i)) }}
			case 4:
				s = sig{b.Nand(n...), func(v []bool) bool { return !all(val(v, i)) }}
			case 5:
				s = sig{b.Nor(n...), func(v []bool) bool { return !any(val(v, i)) }}
			}
		case 6:
			i, n := picks(2)
			s = sig{b.Xor(n[0], n[1]), func(v []bool) bool { return v[i[0]] != v[i[1]] }}
		case 7:
			i, n := picks(2)
			s = sig{b.Xnor(n[0], n[1]), func(v []bool) bool { return v[i[0]] == v[i[1]] }}
		case 8:
			i, n := picks(r.IntN(6))
			s = sig{b.XorAll(n...), func(v []bool) bool { return parity(val(v, i)) }}
		case 9:
			i, n := picks(3)
			s = sig{b.Mux(n[0], n[1], n[2]), func(v []bool) bool {
				if v[i[0]] {
					return v[i[2]]
				}
				return v[i[1]]
			}}
		case 10:
			i, n := picks(3)
			s = sig{b.Aoi21(n[0], n[1], n[2]), func(v []bool) bool { return !(v[i[0]] && v[i[1]] || v[i[2]]) }}
		case 11:
			i, n := picks(3)
			s = sig{b.Oai21(n[0], n[1], n[2]), func(v []bool) bool { return !((v[i[0]] || v[i[1]]) && v[i[2]]) }}
		case 12:
			si, sel := picks(r.IntN(4))
			ii, in := picks(r.IntN(9))
			s = sig{b.Select(sel, in), func(v []bool) bool {
				k := 0
				for j, x := range si {
					if v[x] {
						k |= 1 << j
					}
				}
				return k < len(ii) && v[ii[k]]
			}}
		case 13:
			w := 1 + r.IntN(4)
			ai, a := picks(w)
			ci, c := picks(w)
			s = sig{b.Equal(a, c), func(v []bool) bool {
				for j := range ai {
					if v[ai[j]] != v[ci[j]] {
						return false
					}
				}
				return true
			}}
		}
		pool = append(pool, s)
	}
	// Outputs: the last signals (deep logic) and a random sample.
	var outIdx []int
	for i := len(pool) - 1; i >= 0 && len(outIdx) < 8; i-- {
		outIdx = append(outIdx, i)
	}
	for range 8 {
		outIdx = append(outIdx, pick())
	}
	var outs Bus
	for _, i := range outIdx {
		outs = append(outs, pool[i].net)
	}
	b.Output("y", outs[:5], "")
	b.Output("z", outs[5:], "")
	d, err := b.Build()
	ref := func(in []bool) []bool {
		v := make([]bool, len(pool))
		copy(v, in)
		for i := len(in); i < len(pool); i++ {
			v[i] = pool[i].eval(v)
		}
		return val(v, outIdx)
	}
	return d, ref, err
}

func TestSim_RandomDesignsAgainstInterpreter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		d, ref, err := randomDesign(r, 3+r.IntN(10), 1+r.IntN(60))
		if err != nil {
			t.Fatalf("design %d: %v", iter, err)
		}
		var inPorts, outPorts []int
		for i, p := range d.Ports {
			if p.Dir == In {
				inPorts = append(inPorts, i)
			} else {
				outPorts = append(outPorts, i)
			}
		}
		s := NewSim(d)
		// Random lanes, plus the all-zero and all-one vectors in lanes 0, 1.
		inWords := map[int][]uint64{}
		for _, p := range inPorts {
			w := make([]uint64, d.Ports[p].Width())
			for i := range w {
				w[i] = r.Uint64()&^1 | 2
			}
			inWords[p] = w
			s.SetInput(p, w)
		}
		s.Eval()
		outWords := map[int][]uint64{}
		for _, p := range outPorts {
			outWords[p] = make([]uint64, d.Ports[p].Width())
			s.Output(p, outWords[p])
		}
		for l := range 64 {
			var in []bool
			inNets := map[Net]bool{}
			for _, p := range inPorts {
				for i, n := range d.Ports[p].Bits {
					b := inWords[p][i]>>l&1 == 1
					in = append(in, b)
					inNets[n] = b
				}
			}
			want := ref(in)
			gates := evalGates(d, inNets)
			k := 0
			for _, p := range outPorts {
				for i, n := range d.Ports[p].Bits {
					got := outWords[p][i]>>l&1 == 1
					if got != want[k] || gates[n] != want[k] {
						t.Fatalf("design %d lane %d: %s[%d] sim %v, gate interpreter %v, reference %v\ninputs %v\ngates %v",
							iter, l, d.Ports[p].Name, i, got, gates[n], want[k], in, d.Gates)
					}
					k++
				}
			}
		}
	}
}

func TestSim_DFFStep(t *testing.T) {
	// q0' = q0 ^ en (toggle); q1' = q0 (shift); q2' = q1 (shift).
	// Nets: en 2, q0 3, d0 4, q1 5, q2 6. The XOR reads q0 before its DFF.
	d := &Design{
		Name:    "flops",
		NumNets: 7,
		Clock:   "clk",
		Ports: []Port{
			{Name: "en", Dir: In, Bits: Bus{2}},
			{Name: "q", Dir: Out, Bits: Bus{3, 5, 6}},
		},
		Gates: []Gate{
			{Kind: DFF, In: []Net{3}, Out: 5},
			{Kind: XOR2, In: []Net{3, 2}, Out: 4},
			{Kind: DFF, In: []Net{4}, Out: 3},
			{Kind: DFF, In: []Net{5}, Out: 6},
		},
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	s := NewSim(d)
	r := rand.New(rand.NewPCG(3, 4))
	var q0, q1, q2 uint64 // the expected state in 64 lanes
	q := make([]uint64, 3)
	for cycle := range 20 {
		en := r.Uint64()
		s.SetInput(0, []uint64{en})
		s.Eval()
		s.Output(1, q)
		if q[0] != q0 || q[1] != q1 || q[2] != q2 {
			t.Fatalf("cycle %d: q = %x, want %x %x %x", cycle, q, q0, q1, q2)
		}
		if got := s.Net(4); got != q0^en {
			t.Fatalf("cycle %d: d0 = %x, want %x", cycle, got, q0^en)
		}
		s.Step()
		q0, q1, q2 = q0^en, q0, q1
	}
	if bits.OnesCount64(q0|q1|q2) == 0 {
		t.Error("state never left zero")
	}
}

// allToAll: lanes addresses of width bits; unique_o[i] = no later lane has
// lane i's address. (The same design as timing's benchmark.)
func allToAll(lanes, width int) *Builder {
	b := NewBuilder(fmt.Sprintf("all_to_all_%dx%d", lanes, width))
	addr := b.Input("addr_i", lanes*width, "lane i's address is bits [i*width +: width]")
	lane := func(i int) Bus { return addr[i*width : (i+1)*width] }
	uniq := make(Bus, lanes)
	for i := range lanes {
		var eq []Net
		for j := i + 1; j < lanes; j++ {
			eq = append(eq, b.Equal(lane(i), lane(j)))
		}
		uniq[i] = b.Nor(eq...)
	}
	b.Output("unique_o", uniq, "lane i's address differs from every later lane's")
	return b
}

// bitwiseXorConfigurable: the configurable bitwise_xor bank hash, addr_bits
// 14 and bank_bits 5: bank_o[b] = addr_i[sel_a[b]] ^ addr_i[sel_b[b]] with
// 4-bit selections (positions 14, 15 read 0).
func bitwiseXorConfigurable() *Builder {
	const addrBits, bankBits, selBits = 14, 5, 4
	b := NewBuilder("bitwise_xor_cfg")
	addr := b.Input("addr_i", addrBits, "")
	selA := b.Input("cfg_sel_a_i", bankBits*selBits, "")
	selB := b.Input("cfg_sel_b_i", bankBits*selBits, "")
	bank := make(Bus, bankBits)
	for i := range bank {
		sa := selA[i*selBits : (i+1)*selBits]
		sb := selB[i*selBits : (i+1)*selBits]
		bank[i] = b.Xor(b.Select(sa, addr), b.Select(sb, addr))
	}
	b.Output("bank_o", bank, "")
	return b
}

func TestSim_AllToAllComparator(t *testing.T) {
	// Small instance: lanes 0 and 2 share an address in even vector lanes.
	const lanes, width = 4, 5
	d := mustBuild(t, allToAll(lanes, width))
	s := NewSim(d)
	r := rand.New(rand.NewPCG(5, 6))
	addr := make([]uint64, lanes*width)
	for i := range addr {
		addr[i] = r.Uint64()
	}
	const even = 0x5555555555555555
	for i := range width {
		addr[2*width+i] = addr[i]&even | addr[2*width+i]&^even
	}
	s.SetInput(0, addr)
	s.Eval()
	u := make([]uint64, lanes)
	s.Output(1, u)
	for l := range 64 {
		val := func(i int) (v uint64) {
			for k := range width {
				v |= addr[i*width+k] >> l & 1 << k
			}
			return v
		}
		for i := range lanes {
			want := true
			for j := i + 1; j < lanes; j++ {
				if val(i) == val(j) {
					want = false
				}
			}
			if got := u[i]>>l&1 == 1; got != want {
				t.Errorf("vector %d: unique_o[%d] = %v, want %v", l, i, got, want)
			}
		}
	}
	if u[0]&even != 0 {
		t.Errorf("unique_o[0] = %x, want 0 in even lanes", u[0])
	}
}

func benchSim(b *testing.B, d *Design) {
	s := NewSim(d)
	r := rand.New(rand.NewPCG(7, 8))
	for p, port := range d.Ports {
		if port.Dir == In {
			w := make([]uint64, port.Width())
			for i := range w {
				w[i] = r.Uint64()
			}
			s.SetInput(p, w)
		}
	}
	for b.Loop() {
		s.Eval()
	}
	b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "vectors/s")
	b.ReportMetric(float64(len(d.Gates)), "gates")
}

func BenchmarkSim_AllToAllComparator(b *testing.B) {
	benchSim(b, mustBuild(b, allToAll(64, 32)))
}

func BenchmarkSim_BitwiseXorConfigurable(b *testing.B) {
	benchSim(b, mustBuild(b, bitwiseXorConfigurable()))
}

func BenchmarkNewSim_AllToAllComparator(b *testing.B) {
	d := mustBuild(b, allToAll(64, 32))
	for b.Loop() {
		NewSim(d)
	}
}

// TestKinds_TruthColumn: the Truth column of Kinds is each kind's
// function as the simulator's reference (truth above) computes it.
func TestKinds_TruthColumn(t *testing.T) {
	for k := range Kind(NumKinds) {
		f, ok := truth[k]
		if !ok {
			if Kinds[k].Truth != 0 {
				t.Errorf("%v: truth table %#x for a kind without a function", k, Kinds[k].Truth)
			}
			continue
		}
		n := k.Arity()
		var want uint16
		in := make([]bool, n)
		for m := 0; m < 1<<n; m++ {
			for i := range in {
				in[i] = m>>i&1 == 1
			}
			if f(in) {
				want |= 1 << m
			}
		}
		if Kinds[k].Truth != want {
			t.Errorf("%v: truth table %#x, want %#x", k, Kinds[k].Truth, want)
		}
	}
}

// TestKinds_FnMatchesTruth: each row's function, evaluated from the
// table, gives the row's Truth column; the per-kind kernel the simulator
// picks and the gate-by-gate path it falls back on (evalGeneric) agree
// with it too, so a kind no kernel matches is still simulated right.
func TestKinds_FnMatchesTruth(t *testing.T) {
	for k := range Kind(NumKinds) {
		info := Kinds[k]
		if k == DFF {
			if info.Fn.Op != FnNone {
				t.Errorf("DFF has a combinational function")
			}
			continue
		}
		n := k.Arity()
		if got := info.Fn.TruthOf(n); got != info.Truth {
			t.Errorf("%s: %s has truth table %#x, the row says %#x", k, k.Func(), got, info.Truth)
		}
		// Every kind of the library has a loop of its own: the
		// gate-by-gate path is many times slower.
		if kernels[k] == kernelGeneric {
			t.Errorf("%s: no loop of evalLoops matches %s; add one", k, k.Func())
		}
		// Both simulator paths over one gate: nets 0..n-1 carry the pins
		// (lane m has combination m), net n the output.
		v := make([]uint64, n+1)
		for i := range n {
			for m := range 1 << n {
				v[i] |= uint64(m>>i&1) << m
			}
		}
		code := make([]int32, n)
		for i := range code {
			code[i] = int32(i)
		}
		want := uint64(info.Truth)
		mask := uint64(1)<<(1<<n) - 1
		for _, byGate := range []bool{false, true} {
			v[n] = 0
			s := &Sim{vals: v, code: code, runs: []run{{kind: k, kernel: kernels[k], start: 0, end: n, out: n, outEnd: n + 1}}, gateByGate: byGate}
			s.Eval()
			if got := v[n] & mask; got != want {
				t.Errorf("%s (gate by gate %v): kernel %#x gives %#x, want %#x", k, byGate, kernels[k], got, want)
			}
		}
	}
}
