package retime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// piece is the run of gate wires (view.Assigns[first..last]) that writes
// one split entry's part in one stage, gate by gate.
type piece struct {
	entry       string
	parent      string // the entry it is a part of (partsView), if one
	nth         int    // how many pieces of the entry the stage has before it
	st          int32
	first, last int
}

// pieceShape is a piece up to the names of what it reads: its gates with
// the bits it reads numbered in order of first reading (ext), and which
// of its gates others read (outs).
type pieceShape struct {
	key  string
	nb   *numbering
	ext  []*netlist.Expr
	outs []int
}

// shareGates writes the pieces that repeat one another gate for gate
// (the same adder of a popcount cut at the same bit in every lane) as
// calls of one function, where that shortens the module: each piece
// becomes one wire <entry>_s<k>, the function's result, and every
// reader of one of its gates reads a bit of that wire.
func shareGates(view *netlist.RTL, pieces []piece, newName func(string) (string, error)) error {
	owner := map[string]int{}
	inPiece := make([]int, len(view.Assigns))
	for i := range inPiece {
		inPiece[i] = -1
	}
	for pi, pc := range pieces {
		for i := pc.first; i <= pc.last; i++ {
			owner[view.Assigns[i].Name] = pi
			inPiece[i] = pi
		}
	}
	readOut, readIn := map[string]bool{}, map[string]bool{}
	eachExpr(view, func(e *netlist.Expr, i int) {
		from := -1
		if i >= 0 {
			from = inPiece[i]
		}
		netlist.VisitRefs(e, func(ref *netlist.Expr) {
			if q, ok := owner[ref.Name]; ok {
				if q == from {
					readIn[ref.Name] = true
				} else {
					readOut[ref.Name] = true
				}
			}
		})
	})

	// An entry with several pieces in one stage numbers them.
	type entryStage struct {
		entry string
		st    int32
	}
	perStage := map[entryStage]int{}
	for pi := range pieces {
		k := entryStage{pieces[pi].entry, pieces[pi].st}
		pieces[pi].nth = perStage[k]
		perStage[k]++
	}
	shapes := make([]pieceShape, len(pieces))
	groups := map[string][]int{}
	var keys []string
	for pi, pc := range pieces {
		sh := shapeOf(view.Assigns[pc.first:pc.last+1], readOut, readIn)
		shapes[pi] = sh
		if groups[sh.key] == nil {
			keys = append(keys, sh.key)
		}
		groups[sh.key] = append(groups[sh.key], pi)
	}
	sort.SliceStable(keys, func(i, j int) bool { return groups[keys[i]][0] < groups[keys[j]][0] })

	replace := map[int]netlist.Assign{} // a piece's first assign -> its call
	rename := map[string]*netlist.Expr{}
	fnum := 0
	for _, key := range keys {
		members := groups[key]
		pc0 := pieces[members[0]]
		size := pc0.last - pc0.first + 1
		// A function costs its gates and about six lines; each call
		// saves its piece's gates but one.
		if len(members) < 2 || len(members)*(size-1) <= size+6 {
			continue
		}
		sh := shapes[members[0]]
		fnum++
		fname, err := uniqueName(fmt.Sprintf("gates_%d", fnum), newName)
		if err != nil {
			return err
		}
		fn := function(fname, view.Assigns[pc0.first:pc0.last+1], sh)
		var names []string
		for _, pi := range members[:min(3, len(members))] {
			names = append(names, fmt.Sprintf("%s in stage %d", pieces[pi].entry, pieces[pi].st+1))
		}
		more := ""
		if len(members) > 3 {
			more = fmt.Sprintf(", and %d more", len(members)-3)
		}
		fn.Doc = fmt.Sprintf("%s: the gates of %d parts alike (%s%s); x: what each reads.",
			fname, len(members), strings.Join(names, ", "), more)
		view.Funcs = append(view.Funcs, fn)
		for _, pi := range members {
			pc := pieces[pi]
			base := fmt.Sprintf("%s_s%d", pc.entry, pc.st+1)
			if perStage[entryStage{pc.entry, pc.st}] > 1 {
				base = fmt.Sprintf("%s_s%d_%d", pc.entry, pc.st+1, pc.nth)
			}
			wire, err := uniqueName(base, newName)
			if err != nil {
				return err
			}
			ext := shapes[pi].ext
			arg := ext[0]
			if len(ext) > 1 {
				arg = netlist.Concat(ext...)
			}
			call := netlist.Assign{Name: wire, Wire: true, Compact: true, Expr: netlist.Call(fname, fn.Out, arg)}
			if doc := view.Assigns[pc.first].Doc; strings.HasPrefix(doc, "Stage ") {
				call.Doc = doc[:strings.Index(doc+"\n", "\n")]
			}
			replace[pc.first] = call
			for j, k := range shapes[pi].outs {
				out := netlist.Ref(wire, fn.Out)
				if fn.Out > 1 {
					out = netlist.Slice(out, j, j)
				}
				rename[view.Assigns[pc.first+k].Name] = out
			}
		}
	}
	if len(replace) == 0 {
		return nil
	}
	// A call continues the comment before it where it is a part of the
	// entry whose parts (partsView) that comment heads, or another call
	// of the same function; so does a run of parts after it.
	var assigns []netlist.Assign
	lastFn, run := "", ""
	for i := 0; i < len(view.Assigns); i++ {
		call, ok := replace[i]
		if !ok {
			a := view.Assigns[i]
			switch {
			case run != "" && a.Doc == "Parts of "+run+".":
				a.Doc = ""
			case strings.Contains(a.Doc, "Parts of "):
				doc := a.Doc[strings.LastIndex(a.Doc, "Parts of ")+len("Parts of "):]
				run = strings.TrimSuffix(doc, ".")
			case a.Doc != "" || !a.Compact:
				run = ""
			}
			assigns = append(assigns, a)
			lastFn = ""
			continue
		}
		pc := pieces[inPiece[i]]
		i = pc.last
		fn := call.Expr.Name
		inRun := run != "" && (pc.entry == run || pc.parent == run)
		if call.Doc != "" || !inRun && fn != lastFn {
			doc := fmt.Sprintf("%s's part in stage %d, by function %s.", pc.entry, pc.st+1, fn)
			run = ""
			if pc.parent != "" {
				// A part of an entry heads the run of its parts.
				doc, run = "Parts of "+pc.parent+".", pc.parent
			}
			if call.Doc != "" {
				doc = call.Doc + "\n" + doc
			}
			call.Doc = doc
		}
		lastFn = fn
		assigns = append(assigns, call)
	}
	view.Assigns = assigns
	renameRefs(view, rename)
	return nil
}

// uniqueName is base, or base with underscores appended, as newName
// takes it.
func uniqueName(base string, newName func(string) (string, error)) (string, error) {
	for n := 0; n < 64; n++ {
		if name, err := newName(base); err == nil {
			return name, nil
		}
		base += "_"
	}
	return "", fmt.Errorf("no free name for %s", base)
}

// eachExpr calls f on every expression of view: an assign's (i its
// index) and an instance's port connections, then the registers' (i -1).
func eachExpr(view *netlist.RTL, f func(e *netlist.Expr, i int)) {
	for i, a := range view.Assigns {
		f(a.Expr, i)
		if a.Inst != nil {
			for _, c := range a.Inst.Ports {
				f(c.In, i)
			}
		}
	}
	for _, r := range view.Regs {
		f(r.Next, -1)
		f(r.Clear, -1)
	}
}

// numbering numbers what a piece's gates read: its own gates (local, in
// order) and the bits from outside it (ext, in order of first reading).
type numbering struct {
	local  map[string]int
	extIdx map[string]int
	ext    []*netlist.Expr
}

// operand is e as a piece reads it: one of its gates (local ≥ 0), a bit
// from outside it (ext ≥ 0, numbered when first read), or neither (an
// operator or a constant: both -1).
func (nb *numbering) operand(e *netlist.Expr) (local, ext int) {
	switch {
	case e.Op == netlist.OpRef && hasKey(nb.local, e.Name):
		return nb.local[e.Name], -1
	case e.Op == netlist.OpRef, e.Op == netlist.OpSlice && e.Args[0].Op == netlist.OpRef:
		k := e.Name
		if e.Op == netlist.OpSlice {
			k = fmt.Sprintf("%s[%d:%d]", e.Args[0].Name, e.Hi, e.Lo)
		}
		j, ok := nb.extIdx[k]
		if !ok {
			j = len(nb.ext)
			nb.extIdx[k] = j
			nb.ext = append(nb.ext, e)
		}
		return -1, j
	}
	return -1, -1
}

// shapeOf is the shape of a piece's gate wires: each gate's expression
// with its own gates numbered (L<k>) and the bits it reads from outside
// numbered in order of first reading (X<j>), and the gates read outside
// it (or nowhere).
func shapeOf(gates []netlist.Assign, readOut, readIn map[string]bool) pieceShape {
	nb := &numbering{local: map[string]int{}, extIdx: map[string]int{}}
	var sh pieceShape
	var b strings.Builder
	var ser func(e *netlist.Expr)
	ser = func(e *netlist.Expr) {
		if e.Op == netlist.OpConst {
			fmt.Fprintf(&b, "C%s/%d", e.Val, e.W)
			return
		}
		switch l, x := nb.operand(e); {
		case l >= 0:
			fmt.Fprintf(&b, "L%d", l)
			return
		case x >= 0:
			fmt.Fprintf(&b, "X%d", x)
			return
		}
		fmt.Fprintf(&b, "(%d/%d", e.Op, e.W)
		for _, a := range e.Args {
			b.WriteByte(' ')
			ser(a)
		}
		b.WriteByte(')')
	}
	for k, a := range gates {
		ser(a.Expr)
		b.WriteByte(';')
		nb.local[a.Name] = k
	}
	for k, a := range gates {
		if readOut[a.Name] || !readIn[a.Name] {
			sh.outs = append(sh.outs, k)
		}
	}
	fmt.Fprintf(&b, "|%v", sh.outs)
	sh.key, sh.nb, sh.ext = b.String(), nb, nb.ext
	return sh
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// function is the Func of a piece of shape sh: its gates as locals
// n<k> over the input x (the bits sh.ext), its result the gates sh.outs.
func function(name string, gates []netlist.Assign, sh pieceShape) netlist.Func {
	in := len(sh.ext)
	var sub func(e *netlist.Expr) *netlist.Expr
	sub = func(e *netlist.Expr) *netlist.Expr {
		if e.Op == netlist.OpConst {
			return e
		}
		switch l, j := sh.nb.operand(e); {
		case l >= 0:
			return netlist.Ref(fmt.Sprintf("n%d", l), 1)
		case j >= 0 && in == 1:
			return netlist.Ref(netlist.FuncInput, 1)
		case j >= 0:
			return netlist.Slice(netlist.Ref(netlist.FuncInput, in), j, j)
		}
		c := *e
		c.Args = make([]*netlist.Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = sub(a)
		}
		return &c
	}
	fn := netlist.Func{Name: name, In: in, Out: len(sh.outs)}
	for k, a := range gates {
		fn.Locals = append(fn.Locals, netlist.FuncLocal{Name: fmt.Sprintf("n%d", k), Expr: sub(a.Expr)})
	}
	var outs []*netlist.Expr
	for _, k := range sh.outs {
		outs = append(outs, netlist.Ref(fmt.Sprintf("n%d", k), 1))
	}
	fn.Result = outs[0]
	if len(outs) > 1 {
		fn.Result = netlist.Concat(outs...)
	}
	return fn
}

// renameRefs replaces every reference to a name of rename in view's
// expressions with its expression.
func renameRefs(view *netlist.RTL, rename map[string]*netlist.Expr) {
	walk := func(e *netlist.Expr) *netlist.Expr {
		return netlist.MapRefs(e, func(ref *netlist.Expr) *netlist.Expr {
			if r, ok := rename[ref.Name]; ok {
				return r
			}
			return ref
		})
	}
	for i := range view.Assigns {
		a := &view.Assigns[i]
		a.Expr = walk(a.Expr)
		if a.Inst != nil {
			inst := *a.Inst
			inst.Ports = append([]netlist.PortConn(nil), a.Inst.Ports...)
			for j := range inst.Ports {
				inst.Ports[j].In = walk(inst.Ports[j].In)
			}
			a.Inst = &inst
		}
	}
	for i := range view.Regs {
		view.Regs[i].Next = walk(view.Regs[i].Next)
		view.Regs[i].Clear = walk(view.Regs[i].Clear)
	}
}
