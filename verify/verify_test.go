package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// job writes the design's Verilog into a fresh directory and pairs it
// with the unit's model (sequential for a design with a clock).
func job(t *testing.T, u specs.Unit, b units.Built) verify.Job {
	t.Helper()
	d := b.Design
	j, err := units.Job(u, b)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := u.DeclRange()
	rtlFiles, gateFiles, err := rtl.WriteDir(dir, d, rtl.Info{Version: "lsugen test", Source: r.Filename + ":" + strconv.Itoa(r.Start.Line)})
	if err != nil {
		t.Fatal(err)
	}
	j.Sources = append(j.Sources, append(rtlFiles, gateFiles...)...)
	j.Modules = []string{d.Name, rtl.GatesModuleName(d)}
	j.Dir = dir
	return j
}

// rtlAlone is the RTL module of j's design alone, with its files.
func rtlAlone(j verify.Job) verify.HDLModules {
	rtlFiles, _ := rtl.Sources(j.Design)
	m := verify.HDLModules{Modules: []string{j.Design.Name}}
	for _, name := range rtlFiles {
		m.Sources = append(m.Sources, filepath.Join(j.Dir, name))
	}
	return m
}

// verilatorGateLimit is the largest design whose gate-level module the
// three-engine test builds under Verilator. Above it Verilator runs the
// RTL module alone: the gate-level builds of the 15 larger examples were
// 20 of the cold suite's 54 minutes of CPU (30 s to 160 s each on 2
// cores, against 2 s to 8 s for their RTL), and they add nothing the
// smaller ones and the proofs do not check. Every unit's gate-level
// module still runs on the netlist simulator and Icarus, its RTL on all
// three; RTL = gates is proved for each (verify/formal); the gate writer's
// Verilog runs under Verilator for every example below the limit (every
// kind of unit but the shared memory among them) and for a small
// generated shared memory (TestSharedMemory_GateLevelOnEveryEngine).
const verilatorGateLimit = 10000

// sharedMemoryCycles is the stream the three-engine test runs a unit with
// memories for (lsugen verify's default: 100,000).
const sharedMemoryCycles = 20000

func load(t *testing.T, paths ...string) []specs.Unit {
	t.Helper()
	f, diags := specs.NewLoader().Load(paths...)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return f.Units
}

// TestSpecs_ModelNetlistIcarusVerilator checks every example design, constant
// and configurable, with the same vectors on all three engines; sequential
// units run a stream of cycles in lockstep with their model. The plans
// are `lsugen verify`'s defaults but for units with memories
// (sharedMemoryCycles); the checks run in parallel (RunTasks, one
// per CPU), the Verilator builds of the largest units first. Verilator
// runs the RTL module alone for units above verilatorGateLimit gates.
func TestSpecs_ModelNetlistIcarusVerilator(t *testing.T) {
	// One unit per distinct design: a unit that is another's design under
	// a second name is checked once, under the first name.
	examples, same, err := flow.DistinctExamples()
	if err != nil {
		t.Fatal(err)
	}
	for dup, orig := range same {
		t.Logf("%s: the design of %s, checked under that name", dup, orig)
	}
	// What `lsugen verify` runs by default (and `make verify-all`).
	plan, seqPlan := verify.DefaultPlan(), verify.DefaultSeqPlan()
	seen := map[string]bool{}
	var tasks []verify.Task
	for _, ex := range examples {
		u, d := ex.Spec, ex.Design
		sp := seqPlan
		if d.Pipeline != nil {
			// A pipeline is feed-forward: every output depends on one
			// operation, so Icarus's 1000 cycles or more see all its
			// protocol; the netlist and Verilator run the whole stream.
			sp.IcarusGateCycles = 1 << 22
		}
		if len(d.Memories) > 0 {
			// A unit with memories (the shared memories, 37,000 to
			// 58,000 gates) runs on one lane of the netlist simulator
			// (SeqPlan.Refilled), so 100,000 cycles of each were most of
			// a warm run's time in this test: 20,000 cycles, as the
			// larger memories' lockstep tests run, each a few thousand
			// instructions over every bank, width and atomic.
			sp.Cycles = sharedMemoryCycles
		}
		j := job(t, u, ex.Built)
		if len(d.Gates) > verilatorGateLimit {
			j.ByEngine = map[verify.Engine]verify.HDLModules{verify.Verilator: rtlAlone(j)}
		}
		tasks = append(tasks, verify.Task{Job: j, Plan: plan, SeqPlan: sp, Engines: verify.AllEngines})
		seen[u.Variant()] = true
	}
	start := time.Now()
	outcomes := verify.RunTasks(context.Background(), tasks, runtime.GOMAXPROCS(0), verify.Hooks{
		Finished: func(o verify.Outcome) {
			t.Logf("%6.1fs %-22s %-9s %7.1fs %d", time.Since(start).Seconds(), o.Unit, o.Engine, o.Check.Elapsed.Seconds(), o.Vectors)
		},
	})
	engines := map[string][]verify.Engine{}
	for i, os := range outcomes {
		name := tasks[i].Job.Design.Name
		t.Run(name, func(t *testing.T) {
			for _, o := range os {
				engines[name] = append(engines[name], o.Engine)
				switch {
				case o.Err != nil:
					t.Errorf("%s: %v", o.Engine, o.Err)
				case o.Check.Mismatch != nil:
					t.Errorf("%s: %s", o.Engine, o.Check.Mismatch)
				case o.Check.Vectors == 0:
					t.Errorf("%s ran no vectors", o.Engine)
				}
			}
		})
	}
	// Every unit on every engine.
	for name, es := range engines {
		if len(es) != len(verify.AllEngines) {
			t.Errorf("%s ran on %v, want %v", name, es, verify.AllEngines)
		}
	}
	// Every hash kind and flavour must be among the examples.
	for _, f := range specs.HashFunctions {
		if !seen[string(f)] {
			t.Errorf("no constant %s example in specs/", f)
		}
	}
	for _, f := range []specs.HashFunction{specs.BitvectorPerm, specs.BitvectorXor, specs.BitwisePerm, specs.BitwiseXor, specs.RAP} {
		if !seen[string(f)+", configurable"] {
			t.Errorf("no configurable %s example in specs/", f)
		}
	}
}

// TestVerify_BrokenGateIsCaught flips one gate of a generated netlist: the
// netlist simulator and both HDL simulators (on the gate-level module) must
// report the mismatch with the failing vector and leave a VCD.
func TestVerify_BrokenGateIsCaught(t *testing.T) {
	h := &specs.Hash{Name: "broken_xor", Function: specs.FixedXor, AddrBits: 10, BankBits: 5}
	d, diags := units.Generate(h)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	flipped := false
	for i := range d.Gates {
		if d.Gates[i].Kind == netlist.XOR2 {
			d.Gates[i].Kind = netlist.XNOR2
			flipped = true
			break
		}
	}
	if !flipped {
		t.Fatal("no XOR2 to break")
	}
	j := job(t, h, units.Built{Design: d})
	res, err := verify.Run(context.Background(), j, verify.DefaultPlan(), verify.AllEngines)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed() {
		t.Fatal("a broken gate went unnoticed")
	}
	for _, c := range res.Checks {
		if c.Mismatch == nil {
			t.Errorf("%s did not report the broken gate", c.Engine)
			continue
		}
		m := c.Mismatch
		if m.Vector != 0 || m.Port != "bank_o" || m.Expected != "5'h0" || m.Actual != "5'h1" {
			t.Errorf("%s: mismatch %s, want vector 0 bank_o expected 5'h0 got 5'h1", c.Engine, m)
		}
		if c.Engine != verify.Netlist && !strings.Contains(m.Module, "broken_xor_gates") {
			t.Errorf("%s: mismatch blamed on %s, want the gate-level module", c.Engine, m.Module)
		}
		st, err := os.Stat(m.VCD)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: no VCD of the failing vector (%v)", c.Engine, err)
		}
	}
}

// TestVerify_InterfaceMismatch: a design whose ports differ from the
// model's interface is refused before any simulation.
func TestVerify_InterfaceMismatch(t *testing.T) {
	h := &specs.Hash{Name: "x", Function: specs.FixedXor, AddrBits: 10, BankBits: 5}
	d, _ := units.Generate(h)
	d.Ports[0].Name = "address_i"
	_, err := verify.Run(context.Background(), verify.Job{Design: d, Model: mustModel(t, h)}, verify.DefaultPlan(), []verify.Engine{verify.Netlist})
	if err == nil || !strings.Contains(err.Error(), "interface mismatch") {
		t.Fatalf("err = %v, want an interface mismatch", err)
	}
}

func mustModel(t *testing.T, h *specs.Hash) model.Model {
	m, err := model.ForHash(h)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlan_Coverage checks how vectors are drawn.
func TestPlan_Coverage(t *testing.T) {
	port := func(name string, w int) *netlist.Port {
		return &netlist.Port{Name: name, Bits: make(netlist.Bus, w)}
	}
	p := verify.Plan{MaxVectors: 1 << 10, Configs: 4, Random: 100, Seed: 1}
	vs, cov := p.Vectors([]*netlist.Port{port("addr_i", 10)}, 100)
	if len(vs) != 1024 || cov != "exhaustive" {
		t.Errorf("10 bits: %d vectors, %q", len(vs), cov)
	}
	seen := map[uint64]bool{}
	for _, v := range vs {
		seen[v[0][0]] = true
	}
	if len(seen) != 1024 {
		t.Errorf("exhaustive enumeration repeats values: %d distinct", len(seen))
	}
	vs, cov = p.Vectors([]*netlist.Port{port("addr_i", 8), port("cfg_k_i", 4)}, 100)
	if len(vs) != 4*256 || cov != "4 configs x all 256 data values" {
		t.Errorf("configurable: %d vectors, %q", len(vs), cov)
	}
	for _, v := range vs[:256] {
		if v[1][0] != 0 {
			t.Fatal("first configuration is not all zeros")
		}
	}
	vs, cov = p.Vectors([]*netlist.Port{port("addr_i", 40)}, 100)
	if len(vs) != 100 || cov != "random" {
		t.Errorf("40 bits: %d vectors, %q", len(vs), cov)
	}
	// A large design gets fewer random vectors, but never under 256.
	p.Random, p.GateVectors = 10000, 1<<20
	if vs, _ = p.Vectors([]*netlist.Port{port("addr_i", 40)}, 1024); len(vs) != 1024 {
		t.Errorf("capped: %d vectors, want 1024", len(vs))
	}
	if vs, _ = p.Vectors([]*netlist.Port{port("addr_i", 40)}, 1<<20); len(vs) != 256 {
		t.Errorf("floor: %d vectors, want 256", len(vs))
	}
}

// TestSequentialEdges runs corner configurations of the sequential units
// (one memory stage, one lane, four ports, odd way counts, no tag bits)
// in lockstep on the netlist simulator and Icarus.
func TestSequentialEdges(t *testing.T) {
	for _, u := range load(t, "testdata/pipeline_edges.hcl") {
		t.Run(u.UnitName(), func(t *testing.T) {
			b, diags := units.Build(u)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			res, err := verify.RunSequential(context.Background(), job(t, u, b), verify.SeqPlan{Cycles: 30_000, Seed: 7},
				[]verify.Engine{verify.Netlist, verify.Icarus})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Checks {
				if c.Mismatch != nil {
					t.Errorf("%s: %s", c.Engine, c.Mismatch)
				}
			}
		})
	}
}

// TestVerify_BrokenPipelineIsCaught breaks the generated elastic
// pipeline's NONMEM queue (its slot 0 no longer sees that slot 1 frees up):
// every engine must find it in lockstep, name the same cycle and leave a
// VCD.
func TestVerify_BrokenPipelineIsCaught(t *testing.T) {
	p := &specs.ElasticPipeline{Name: "broken_ep", MemStages: 2, WarpSize: 16, SIMDWidth: 8, ShmemPorts: 1, TagBits: 4, PipeVariant: specs.PipeElastic}
	d, diags := units.Generate(p)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	target := netlist.Net(-1)
	for n, name := range d.NetNames {
		if name == "nq1_vacant" {
			target = n
		}
	}
	broken := false
	for i, g := range d.Gates {
		for k, in := range g.In {
			if in == target && g.Kind != netlist.DFF && !broken {
				d.Gates[i].In[k] = netlist.Const0
				broken = true
			}
		}
	}
	if !broken {
		t.Fatal("no reader of nq1_vacant to break")
	}
	res, err := verify.RunSequential(context.Background(), job(t, p, units.Built{Design: d}), verify.SeqPlan{Cycles: 5000, Seed: 3}, verify.AllEngines)
	if err != nil {
		t.Fatal(err)
	}
	cycle := -1
	for _, c := range res.Checks {
		m := c.Mismatch
		if m == nil {
			t.Errorf("%s did not catch the broken queue", c.Engine)
			continue
		}
		if !m.Clocked || !strings.Contains(m.String(), fmt.Sprintf("cycle %d", m.Vector)) {
			t.Errorf("%s: the mismatch does not name its cycle: %s", c.Engine, m)
		}
		if cycle >= 0 && m.Vector != cycle {
			t.Errorf("%s: cycle %d, another engine said %d", c.Engine, m.Vector, cycle)
		}
		cycle = m.Vector
		if st, err := os.Stat(m.VCD); err != nil || st.Size() == 0 {
			t.Errorf("%s: no VCD (%v)", c.Engine, err)
		}
	}
}
