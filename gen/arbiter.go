package gen

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// The bank arbiter: the bank-conflict degree of a warp access (what the
// elastic pipeline of 001_* consumes) and conflict-free grants, with
// hashed banks and locks (002_*). Every pair of lanes compares addresses
// (and banks, and locks); a lane's count is a popcount over the lanes
// that agree with it, and the degree is the maximum count.

// arbiter is the generator's state: the dual builder and the lanes.
type arbiter struct {
	*dual
	a     *specs.BankArbiter
	d     int   // width of a count, clog2(lanes+1)
	lanes []sig // lane addresses
}

// BankArbiter builds a bank arbiter, combinational or serializing.
func BankArbiter(a *specs.BankArbiter) (*nl.Design, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	bank, bankDiags := referencedHash(a, a.Hash)
	lock, lockDiags := referencedHash(a, a.LockHash)
	if diags = append(append(diags, bankDiags...), lockDiags...); diags.HasErrors() {
		return nil, diags
	}
	g := &arbiter{dual: newDual(a.Name), a: a, d: clog2(a.Lanes + 1)}
	L, A := a.Lanes, a.AddrBits
	var rst, valid sig
	if a.Serialize {
		g.b.Clock("clk", "clock; state changes at its rising edge")
		rst = g.input("rst", 1, "synchronous reset, active high: drops the warp being granted")
		valid = g.input("valid_i", 1, "a warp is offered on addr_i/active_i")
	}
	addr := g.input("addr_i", L*A, fmt.Sprintf("%d lanes of %d-bit word addresses, lane 0 in the least significant bits", L, A))
	active := g.input("active_i", L, "bit i: lane i takes part in the access")
	bankCfg := g.cfgInputs(bank, "hash_", "bank hash")
	lockCfg := g.cfgInputs(lock, "lock_", "lock hash")
	for k := 0; k < L; k++ {
		doc := ""
		if k == 0 {
			doc = "lane addresses"
		}
		g.lanes = append(g.lanes, g.wire(fmt.Sprintf("lane_%d", k), g.slice(addr, (k+1)*A-1, k*A), doc))
	}
	banks := g.mapLanes(bank, bankCfg, "bank", a.BankBits)
	eqA := g.pairs("same_addr", g.lanes)
	eqB := g.pairs("same_bank", banks)
	// first[k]: lane k is active and no earlier active lane has its
	// address: the lanes that stand for a distinct address.
	first := g.firstOf(active, eqA, "first_addr")
	countIn := active
	if a.Broadcast {
		countIn = first
	}
	degree := g.maxCount("bank_count", countIn, eqB)

	var ready, grantValid, last sig
	var grant sig
	if a.Serialize {
		busy := g.reg("busy", 1, "a warp is being granted")
		rem := g.reg("rem", L, "lanes of the warp in hand not granted yet")
		heldA := g.reg("held_addr", L*A, "addresses of the warp in hand")
		heldB := g.reg("held_bank", L*a.BankBits, "banks of the warp in hand, as hashed when it was accepted")
		var hl, hb []sig
		for k := 0; k < L; k++ {
			hl = append(hl, g.slice(heldA, (k+1)*A-1, k*A))
			hb = append(hb, g.slice(heldB, (k+1)*a.BankBits-1, k*a.BankBits))
		}
		// rem is 0 whenever busy is 0 (reset clears both; the last grant
		// leaves nothing), so the grant needs no gating by busy.
		grant = g.wire("grant", g.grant(rem, g.pairs("held_same_addr", hl), g.pairs("held_same_bank", hb)), "the next conflict-free subset of rem")
		left := g.wire("left", g.and(rem, g.not(grant)), "lanes still waiting after this grant")
		last = g.wire("last", g.and(busy, g.not(g.nonzero(left))), "this is the warp's final grant")
		ready = g.wire("ready", g.or(g.not(busy), last), "idle, or finishing")
		accept := g.wire("accept", g.and(valid, ready), "a warp is taken this cycle")
		g.next(busy, rst, g.or(accept, g.and(busy, g.not(last))))
		g.next(rem, rst, g.mux(accept, active, left))
		g.next(heldA, noClear, g.mux(accept, addr, heldA))
		g.next(heldB, noClear, g.mux(accept, g.concat(banks...), heldB))
		grantValid = busy
	} else {
		grant = g.grant(active, eqA, eqB)
	}

	if a.Serialize {
		g.output("ready_o", ready, "a warp offered now is accepted (idle, or in the last grant cycle)")
		g.output("grant_valid_o", grantValid, "grant_o is a grant of the warp in hand")
		g.output("grant_o", grant, "lanes served this cycle: conflict-free")
		g.output("last_o", last, "the warp's final grant")
	}
	g.output("bank_o", g.concat(banks...), fmt.Sprintf("each lane's bank, %d bits per lane", a.BankBits))
	g.output("degree_o", degree, degreeDoc(a))
	if !a.Serialize {
		g.output("grant_o", grant, "a conflict-free subset: per bank, the lanes on the address of its lowest active lane")
	}
	if lock != nil {
		locks := g.mapLanes(lock, lockCfg, "lock", a.LockBits())
		eqK := g.pairs("same_lock", locks)
		g.output("lock_o", g.concat(locks...), fmt.Sprintf("each lane's lock index, %d bits per lane", a.LockBits()))
		g.output("lock_degree_o", g.maxCount("lock_count", first, eqK), "the most distinct addresses of active lanes on one lock index")
		g.output("position_degree_o", g.maxCount("addr_count", active, eqA), "the most active lanes on one address")
	}
	g.b.Header(arbiterHeader(a, bank, lock)...)
	d, err := g.build()
	if err != nil {
		return nil, internalError(a, err)
	}
	return d, diags
}

// referencedHash generates the design of a referenced hash unit (nil for
// no reference).
func referencedHash(a *specs.BankArbiter, ref *specs.UnitRef) (*nl.Design, hcl.Diagnostics) {
	if ref == nil {
		return nil, nil
	}
	h := ref.Hash()
	if h == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unresolved reference",
			Detail:  fmt.Sprintf("%s = %s.%s was not resolved to a hash unit; load the file that declares it.", ref.Attr, ref.Kind, ref.Name),
			Subject: ref.Range.Ptr()}}
	}
	if h.AddrBits > a.AddrBits {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Width mismatch",
			Detail:  fmt.Sprintf("hash %q reads %d address bits; the arbiter's addresses have %d.", h.Name, h.AddrBits, a.AddrBits),
			Subject: ref.Range.Ptr()}}
	}
	return Hash(h)
}

// cfgInputs declares the arbiter's ports for a configurable hash's
// configuration inputs (every input but addr_i), prefixed.
func (g *arbiter) cfgInputs(h *nl.Design, prefix, what string) map[string]sig {
	if h == nil {
		return nil
	}
	cfg := map[string]sig{}
	for _, p := range h.Inputs() {
		if p.Name == "addr_i" {
			continue
		}
		cfg[p.Name] = g.input(prefix+p.Name, p.Width(), fmt.Sprintf("%s configuration, shared by every lane: %s", what, p.Doc))
	}
	return cfg
}

// mapLanes gives each lane's index under hash h (an instance per lane),
// or its low w address bits when h is nil.
func (g *arbiter) mapLanes(h *nl.Design, cfg map[string]sig, what string, w int) []sig {
	out := make([]sig, len(g.lanes))
	for k, lane := range g.lanes {
		if h == nil {
			out[k] = g.wire(fmt.Sprintf("%s_%d", what, k), g.slice(lane, w-1, 0), "")
			continue
		}
		in := map[string]sig{"addr_i": g.slice(lane, h.Port("addr_i").Width()-1, 0)}
		for name, s := range cfg {
			in[name] = s
		}
		doc := ""
		if k == 0 {
			doc = fmt.Sprintf("each lane's %s index from %s", what, h.Name)
		}
		out[k] = g.instance(fmt.Sprintf("%s_hash_%d", what, k), h, in, doc)["bank_o"]
	}
	return out
}

// instance places sub, its inputs driven by in, and returns its outputs.
func (g *dual) instance(name string, sub *nl.Design, in map[string]sig, doc string) map[string]sig {
	bits := map[string]nl.Bus{}
	for port, s := range in {
		bits[port] = s.n
	}
	outs := g.b.Instance(name, sub, bits)
	conns := make([]nl.PortConn, len(sub.Ports))
	res := map[string]sig{}
	for i, p := range sub.Ports {
		conns[i] = nl.PortConn{Port: p.Name, W: p.Width()}
		if p.Dir == nl.In {
			conns[i].In = in[p.Name].e
			continue
		}
		conns[i].Wire = name + "_" + p.Name
		res[p.Name] = sig{outs[p.Name], nl.Ref(conns[i].Wire, p.Width())}
	}
	g.r.Assigns = append(g.r.Assigns, nl.Assign{Name: name, Doc: doc, Inst: &nl.InstanceRTL{Module: sub.Name, Ports: conns}})
	return res
}

// pairs compares every pair of values: eq[i][j] (i < j) is one bit, 1
// when they are equal; eq[j][i] is the same signal.
func (g *dual) pairs(name string, vals []sig) [][]sig {
	n := len(vals)
	eq := make([][]sig, n)
	for i := range eq {
		eq[i] = make([]sig, n)
	}
	var row []sig
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			eq[i][j] = g.eq(vals[i], vals[j])
			row = append(row, eq[i][j])
		}
	}
	// One wire holds every comparison, so the RTL reads as a table.
	all := g.wire(name, g.concat(row...), fmt.Sprintf("pair (i, j), i < j, in order (0,1), (0,2), ...: %s", name))
	k := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			eq[i][j] = g.bit(all, k)
			eq[j][i] = eq[i][j]
			k++
		}
	}
	return eq
}

// same is eq[i][j], 1 on the diagonal.
func (g *dual) same(eq [][]sig, i, j int) sig {
	if i == j {
		return g.konst(1, 1)
	}
	return eq[i][j]
}

// firstOf marks the set lanes of mask with no earlier set lane equal to
// them under eq: first[k] = mask[k] & ~|(mask[k-1:0] & eq[k-1:0][k]).
func (g *dual) firstOf(mask sig, eq [][]sig, name string) sig {
	out := make([]sig, mask.w())
	for k := range out {
		out[k] = g.bit(mask, k)
		if k == 0 {
			continue
		}
		col := make([]sig, k)
		for j := range col {
			col[j] = eq[j][k]
		}
		earlier := g.and(g.slice(mask, k-1, 0), g.concat(col...))
		out[k] = g.and(out[k], g.not(g.nonzero(earlier)))
	}
	return g.wire(name, g.concat(out...), "set lanes with no earlier set lane on the same value")
}

// grant is the conflict-free subset of mask: per bank, the lanes on the
// address of the bank's lowest lane in mask (only that lane without
// broadcast).
func (g *arbiter) grant(mask sig, eqA, eqB [][]sig) sig {
	lead := g.firstOf(mask, eqB, "leader")
	if !g.a.Broadcast {
		return lead
	}
	out := make([]sig, mask.w())
	for i := range out {
		var hit []sig
		for k := 0; k <= i; k++ {
			hit = append(hit, g.and(g.bit(lead, k), g.same(eqB, k, i), g.same(eqA, k, i)))
		}
		out[i] = g.and(g.bit(mask, i), g.or(hit...))
	}
	return g.concat(out...)
}

// maxCount is the largest, over lanes i, of the number of lanes j in
// mask with eq[i][j] (i included when in mask).
func (g *arbiter) maxCount(name string, mask sig, eq [][]sig) sig {
	n := mask.w()
	counts := make([]sig, n)
	for i := 0; i < n; i++ {
		terms := make([]sig, n)
		for j := 0; j < n; j++ {
			terms[j] = g.and(g.bit(mask, j), g.same(eq, i, j))
		}
		doc := ""
		if i == 0 {
			doc = fmt.Sprintf("%s_i: how many lanes j agree with lane i", name)
		}
		counts[i] = g.wire(fmt.Sprintf("%s_%d", name, i), g.popcount(terms, g.d), doc)
	}
	return g.maxTree(name+"_max", counts)
}

// popcount adds one-bit terms, w bits out, in a balanced tree of adders:
// ripple adders of growing width in gates, w-bit sums of the same shape
// in the RTL (the same partial sums, which keeps the formal proof fast).
func (g *arbiter) popcount(terms []sig, w int) sig {
	level := make([]nl.Bus, len(terms))
	sums := make([]*nl.Expr, len(terms))
	for i, t := range terms {
		level[i] = t.n
		sums[i] = nl.Concat(t.e, nl.ConstExpr(0, w-1))
	}
	width := 1
	for len(level) > 1 {
		width = min(width+1, w)
		var next []nl.Bus
		var nextE []*nl.Expr
		for i := 0; i+1 < len(level); i += 2 {
			sum := rippleAdd(g.b, widen(level[i], width), widen(level[i+1], width), nl.Const0)
			next = append(next, sum)
			e := nl.AddE(sums[i], sums[i+1])
			e.Nets = widen(sum, w) // a pipeline may cut the tree at its partial sums
			nextE = append(nextE, e)
		}
		if len(level)%2 == 1 {
			next = append(next, widen(level[len(level)-1], width))
			nextE = append(nextE, sums[len(sums)-1])
		}
		level, sums = next, nextE
	}
	return sig{widen(level[0], w), sums[0]}
}

// maxTree is the largest of equal-width unsigned values, by a balanced
// tree of compare-and-select; each level's results are wires name_L_k.
func (g *arbiter) maxTree(name string, vals []sig) sig {
	for level := 1; len(vals) > 1; level++ {
		var next []sig
		for i := 0; i+1 < len(vals); i += 2 {
			x, y := vals[i], vals[i+1]
			lt := sig{nl.Bus{lessThan(g.b, specs.AdderPrefix, x.n, y.n)}, nl.LtE(x.e, y.e)}
			next = append(next, g.wire(fmt.Sprintf("%s_%d_%d", name, level, i/2), g.mux(lt, y, x), ""))
		}
		if len(vals)%2 == 1 {
			next = append(next, vals[len(vals)-1])
		}
		vals = next
	}
	return vals[0]
}

func degreeDoc(a *specs.BankArbiter) string {
	if a.Broadcast {
		return "bank-conflict degree: the most distinct addresses of active lanes in one bank (0: none active)"
	}
	return "bank-conflict degree: the most active lanes in one bank (0: none active)"
}

func arbiterHeader(a *specs.BankArbiter, bank, lock *nl.Design) []string {
	h := []string{fmt.Sprintf("Bank arbiter, %d lanes of %d-bit word addresses, %d banks.", a.Lanes, a.AddrBits, 1<<a.BankBits)}
	if bank != nil {
		h = append(h, fmt.Sprintf("Bank of each lane: module %s (one instance per lane) on address bits [%d:0].", bank.Name, bank.Port("addr_i").Width()-1))
	} else {
		h = append(h, fmt.Sprintf("Bank of each lane: address bits [%d:0] (address mod %d).", a.BankBits-1, 1<<a.BankBits))
	}
	if a.Broadcast {
		h = append(h, "Broadcast: lanes on one address are served together, so degree_o counts distinct addresses",
			"per bank, and grant_o takes, per bank, every active lane on the address of its lowest active lane.")
	} else {
		h = append(h, "No broadcast: every active lane is served on its own, so degree_o counts active lanes per bank",
			"and grant_o takes the lowest active lane of each bank.")
	}
	if lock != nil {
		h = append(h, fmt.Sprintf("Locks (002_*): lock index of each lane from module %s; lock_degree_o counts distinct", lock.Name),
			"addresses per lock index, position_degree_o active lanes per address.")
	}
	h = append(h, "Each lane is compared with every other (address, bank, lock); a lane's count is a popcount",
		"over the lanes that agree with it, and a degree is the largest count (a compare-and-select tree).")
	if a.Serialize {
		h = append(h, "Protocol: clocked at the rising edge of clk, synchronous active-high rst.",
			"A warp is accepted when valid_i & ready_o. From the next cycle on, each cycle has grant_valid_o = 1 and",
			"grant_o = the next conflict-free subset of the lanes not granted yet; last_o marks the final one, so a",
			"warp of degree d takes exactly d grant cycles (one empty grant when no lane is active). ready_o is",
			"high when idle or in the last grant cycle, so warps can follow back to back. bank_o, degree_o and",
			"the lock outputs are combinational in addr_i/active_i: they describe the warp being offered.")
	} else {
		h = append(h, "Protocol: combinational; outputs follow the inputs, no clock, no reset.")
	}
	return h
}
