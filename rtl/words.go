package rtl

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/lsugen/lsugen/verilog"

	"github.com/lsugen/lsugen/netlist"
)

// WriteRTL writes the readable Verilog-2005 module d.Name, printed from
// d.RTL, to w. It returns an error, and writes nothing, when d has no RTL
// or the RTL is inconsistent: an unknown or misdeclared name, an operand or
// target of the wrong width, an output assigned twice or never.
func WriteRTL(w io.Writer, d *netlist.Design, info Info) error {
	if d == nil {
		return errors.New("rtl: nil design")
	}
	if d.RTL == nil {
		return fmt.Errorf("rtl: %s: design has no word-level view (RTL)", d.Name)
	}
	if err := checkPorts(d); err != nil {
		return err
	}
	rw := &rtlWriter{d: d, sigs: map[string]*sig{}, mems: map[string]*netlist.Mem{}, names: newNamer()}
	f, err := rw.write(info)
	if err != nil {
		return err
	}
	return f.writeTo(w)
}

type sigKind uint8

const (
	sigIn sigKind = iota
	sigOut
	sigParam
	sigWire
	sigReg
)

// sig is a name the word-level expressions can refer to.
type sig struct {
	name     string
	kind     sigKind
	w        int
	assigned bool   // outputs: driven already
	used     []bool // inputs, wires: bits read; params: used[0] = referenced
}

type rtlWriter struct {
	d     *netlist.Design
	sigs  map[string]*sig
	mems  map[string]*netlist.Mem
	order []*sig // inputs, params, wires (and temporaries) in declaration order
	names *namer

	cur  string   // the assignment being printed
	ntmp int      // temporaries made for cur
	pre  []string // lines declaring cur's temporaries, in order

	funcs  map[string]*netlist.Func
	inFunc bool // printing a function's body, which sees only its input and locals

	// fields names the array view of a bus read by run-time part
	// selects (see fieldArray), by bus name and field width.
	fields map[fieldKey]string
}

type fieldKey struct {
	name string
	w    int
}

func (rw *rtlWriter) add(s *sig) {
	rw.sigs[s.name] = s
	if s.kind != sigOut {
		rw.order = append(rw.order, s)
	}
}

func (rw *rtlWriter) write(info Info) (*file, error) {
	d := rw.d
	for _, p := range d.Ports {
		rw.names.reserve(p.Name)
		k := sigIn
		if p.Dir == netlist.Out {
			k = sigOut
		}
		rw.add(&sig{name: p.Name, kind: k, w: p.Width(), used: make([]bool, p.Width())})
	}
	for _, p := range d.RTL.Params {
		if err := rw.newName(p.Name, "localparam"); err != nil {
			return nil, err
		}
		if p.Width < 1 {
			return nil, fmt.Errorf("rtl: %s: localparam %s has width %d", d.Name, p.Name, p.Width)
		}
		if p.Value != nil && (p.Value.Sign() < 0 || p.Value.BitLen() > p.Width) {
			return nil, fmt.Errorf("rtl: %s: localparam %s: value %s does not fit in %d bits", d.Name, p.Name, p.Value, p.Width)
		}
		rw.add(&sig{name: p.Name, kind: sigParam, w: p.Width, used: make([]bool, 1)})
	}
	if err := rw.declareState(); err != nil {
		return nil, err
	}
	if err := rw.declareFuncs(); err != nil {
		return nil, err
	}
	// Reserve every local wire and instance name first, so that no
	// temporary takes one.
	for _, a := range d.RTL.Assigns {
		switch {
		case a.Inst != nil:
			if err := rw.newName(a.Name, "instance"); err != nil {
				return nil, err
			}
			for _, c := range a.Inst.Ports {
				if c.In == nil {
					if err := rw.newName(c.Wire, "wire"); err != nil {
						return nil, err
					}
				}
			}
		case a.Wire:
			if err := rw.newName(a.Name, "wire"); err != nil {
				return nil, err
			}
		}
	}

	// Both views place each memory as an instance of the same name, so
	// that a proof can match the two sides' banks.
	insts := map[string]*netlist.InstanceRTL{}
	for _, a := range d.RTL.Assigns {
		if a.Inst != nil {
			insts[a.Name] = a.Inst
		}
	}
	for i := range d.Memories {
		m := &d.Memories[i]
		inst := insts[m.Name]
		if inst == nil || inst.Module != m.Module {
			return nil, fmt.Errorf("rtl: %s: memory %s: the word-level view has no instance %s of %s", d.Name, m.Name, m.Name, m.Module)
		}
		if err := checkBankPorts(m, inst, d.Clock); err != nil {
			return nil, fmt.Errorf("rtl: %s: memory %s: %w", d.Name, m.Name, err)
		}
	}

	f := &file{}
	header(f, d, d.Name, info, memorySummary(d))
	portList(f, d, d.Name)

	for _, p := range d.RTL.Params {
		f.blank()
		f.doc("    ", p.Doc)
		localparam(f, p)
	}
	rw.stateDecls(f)
	rw.memoryReadWires(f, insts)
	for i := range d.RTL.Funcs {
		if err := rw.function(f, &d.RTL.Funcs[i]); err != nil {
			return nil, err
		}
	}
	for _, a := range d.RTL.Assigns {
		if err := rw.assign(f, a); err != nil {
			return nil, fmt.Errorf("rtl: %s: assign %s: %w", d.Name, a.Name, err)
		}
	}
	if err := rw.stateUpdates(f); err != nil {
		return nil, err
	}
	for _, p := range d.Ports {
		if p.Dir == netlist.Out && !rw.sigs[p.Name].assigned {
			return nil, fmt.Errorf("rtl: %s: output %s is never assigned", d.Name, p.Name)
		}
	}

	var items []string
	for _, s := range rw.order {
		switch s.kind {
		case sigIn, sigWire, sigReg:
			if !allTrue(s.used) {
				items = append(items, bitRanges(s.name, s.used)...)
			}
		case sigParam:
			if !s.used[0] {
				items = append(items, s.name)
			}
		}
	}
	unusedSink(f, rw.names.take(unusedName), items)
	f.blank()
	f.line("endmodule")
	f.blank()
	f.line("`default_nettype wire")
	return f, nil
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// rangeOf0 is the range of a localparam: always explicit, [0:0] for one bit.
func rangeOf0(w int) string { return fmt.Sprintf("[%d:0]", w-1) }

func (rw *rtlWriter) newName(name, what string) error {
	if !validIdent(name) || verilog.IsReserved(name) {
		return fmt.Errorf("rtl: %s: %s name %q is not a usable Verilog identifier", rw.d.Name, what, name)
	}
	if !rw.names.reserve(name) {
		return fmt.Errorf("rtl: %s: %s name %s is already used", rw.d.Name, what, name)
	}
	return nil
}

func (rw *rtlWriter) assign(f *file, a netlist.Assign) error {
	if a.Inst != nil {
		return rw.instance(f, a)
	}
	if err := rw.check(a.Expr); err != nil {
		return err
	}
	var target *sig
	if a.Wire {
		target = &sig{name: a.Name, kind: sigWire, w: a.Expr.W, used: make([]bool, a.Expr.W)}
	} else {
		target = rw.sigs[a.Name]
		switch {
		case target == nil:
			return errors.New("not an output port (and not marked Wire)")
		case target.kind != sigOut:
			return errors.New("target is not an output port (and the assign is not marked Wire)")
		case target.assigned:
			return errors.New("output assigned more than once")
		case target.w != a.Expr.W:
			return fmt.Errorf("expression is %d bits, output %s is %d bits", a.Expr.W, a.Name, target.w)
		}
		target.assigned = true
	}
	rw.cur, rw.ntmp, rw.pre = a.Name, 0, nil
	var text string
	var parts []string // of a top-level concatenation, most significant first
	if e := a.Expr; e.Op == netlist.OpConcat && len(e.Args) > 1 {
		for i := len(e.Args) - 1; i >= 0; i-- {
			parts = append(parts, rw.plain(e.Args[i]))
		}
		text = "{" + strings.Join(parts, ", ") + "}"
	} else {
		text = rw.plain(a.Expr)
	}

	if !a.Compact || a.Doc != "" {
		f.blank()
	}
	f.doc("    ", a.Doc)
	for _, l := range rw.pre {
		f.line("    %s", l)
	}
	if a.Wire && a.Compact {
		rw.add(target)
		f.line("    wire %s%s = %s;", declRange(target.w), a.Name, text)
		return nil
	}
	if a.Wire {
		f.line("    wire %s%s;", declRange(target.w), a.Name)
		rw.add(target)
	}
	stmt := fmt.Sprintf("    assign %s = %s;", a.Name, text)
	if len(stmt) <= maxLine || parts == nil {
		f.line("%s", stmt)
		return nil
	}
	// A long concatenation: one part a line, most significant first.
	f.line("    assign %s = {", a.Name)
	for i, p := range parts {
		sep := ","
		if i == len(parts)-1 {
			sep = ""
		}
		f.line("        %s%s", p, sep)
	}
	f.line("    };")
	return nil
}

// memoryReadWires declares the read data of the memories' instances
// before any assignment: like a register's output, the logic that feeds
// a bank (its address, an atomic's new value) reads them.
func (rw *rtlWriter) memoryReadWires(f *file, insts map[string]*netlist.InstanceRTL) {
	for i := range rw.d.Memories {
		for _, c := range insts[rw.d.Memories[i].Name].Ports {
			if c.In != nil {
				continue
			}
			if i == 0 {
				f.blank()
				f.line("    // Read data of the bank macros (instances below).")
			}
			o := &sig{name: c.Wire, kind: sigWire, w: c.W, used: make([]bool, c.W)}
			f.line("    wire %s%s;", declRange(o.w), o.name)
			rw.add(o)
		}
	}
}

// instance prints a module instance: its output wires, then the instance
// with one connection a line.
func (rw *rtlWriter) instance(f *file, a netlist.Assign) error {
	rw.cur, rw.ntmp, rw.pre = a.Name, 0, nil
	conns := make([]string, len(a.Inst.Ports))
	var outs []*sig
	for i, c := range a.Inst.Ports {
		if !validIdent(c.Port) {
			return fmt.Errorf("port name %q is not a Verilog identifier", c.Port)
		}
		if c.In != nil {
			if err := rw.check(c.In); err != nil {
				return fmt.Errorf("port %s: %w", c.Port, err)
			}
			if c.In.W != c.W {
				return fmt.Errorf("port %s is %d bits, its value %d", c.Port, c.W, c.In.W)
			}
			conns[i] = rw.plain(c.In)
			continue
		}
		if c.W < 1 {
			return fmt.Errorf("output %s has width %d", c.Port, c.W)
		}
		outs = append(outs, &sig{name: c.Wire, kind: sigWire, w: c.W, used: make([]bool, c.W)})
		conns[i] = c.Wire
	}
	f.blank()
	f.doc("    ", a.Doc)
	for _, l := range rw.pre {
		f.line("    %s", l)
	}
	for _, o := range outs {
		if s := rw.sigs[o.name]; s != nil && s.kind == sigWire {
			continue // a memory's read data, declared up front
		}
		f.line("    wire %s%s;", declRange(o.w), o.name)
		rw.add(o)
	}
	f.line("    %s %s (", a.Inst.Module, a.Name)
	for i, c := range a.Inst.Ports {
		sep := ","
		if i == len(a.Inst.Ports)-1 {
			sep = ""
		}
		f.line("        .%s(%s)%s", c.Port, conns[i], sep)
	}
	f.line("    );")
	return nil
}

// maxLine is the length beyond which long statements are broken.
const maxLine = 100

var opNames = map[netlist.Op]string{
	netlist.OpRef: "reference", netlist.OpConst: "constant", netlist.OpSlice: "slice",
	netlist.OpBit: "bit select", netlist.OpPart: "part select", netlist.OpConcat: "concatenation",
	netlist.OpNot: "~", netlist.OpAnd: "&", netlist.OpOr: "|", netlist.OpXor: "^",
	netlist.OpAdd: "+", netlist.OpShr: ">>", netlist.OpEq: "==", netlist.OpMux: "?:",
	netlist.OpLt: "<", netlist.OpShl: "<<", netlist.OpMem: "memory read",
	netlist.OpCall: "function call",
}

// check validates e's structure and widths against the declared names.
func (rw *rtlWriter) check(e *netlist.Expr) error {
	if e == nil {
		return errors.New("nil expression")
	}
	name, ok := opNames[e.Op]
	if !ok {
		return fmt.Errorf("unknown operator %d", e.Op)
	}
	if e.W < 1 {
		return fmt.Errorf("%s has width %d", name, e.W)
	}
	nargs := map[netlist.Op]int{
		netlist.OpRef: 0, netlist.OpConst: 0, netlist.OpSlice: 1, netlist.OpBit: 2,
		netlist.OpPart: 2, netlist.OpNot: 1, netlist.OpAdd: 2, netlist.OpShr: 2,
		netlist.OpEq: 2, netlist.OpMux: 3, netlist.OpLt: 2, netlist.OpShl: 2, netlist.OpMem: 1,
		netlist.OpCall: 1,
	}
	if n, fixed := nargs[e.Op]; fixed && len(e.Args) != n {
		return fmt.Errorf("%s has %d operands, want %d", name, len(e.Args), n)
	}
	for _, a := range e.Args {
		if err := rw.check(a); err != nil {
			return err
		}
	}
	a := e.Args
	switch e.Op {
	case netlist.OpRef:
		s := rw.sigs[e.Name]
		switch {
		case s == nil && rw.inFunc:
			return fmt.Errorf("%s is not the function's input or one of its locals", e.Name)
		case s == nil && rw.names.taken[e.Name]:
			return fmt.Errorf("wire %s is used before its assignment", e.Name)
		case s == nil:
			return fmt.Errorf("reference to unknown name %q", e.Name)

		case s.w != e.W:
			return fmt.Errorf("%s is %d bits but referenced as %d bits", e.Name, s.w, e.W)
		}
	case netlist.OpConst:
		if e.Val != nil && (e.Val.Sign() < 0 || e.Val.BitLen() > e.W) {
			return fmt.Errorf("constant %s does not fit in %d bits", e.Val, e.W)
		}
	case netlist.OpSlice:
		if e.Lo < 0 || e.Hi < e.Lo || e.Hi >= a[0].W {
			return fmt.Errorf("slice [%d:%d] of a %d-bit operand", e.Hi, e.Lo, a[0].W)
		}
		if e.W != e.Hi-e.Lo+1 {
			return fmt.Errorf("slice [%d:%d] has width %d", e.Hi, e.Lo, e.W)
		}
	case netlist.OpBit:
		if e.W != 1 {
			return fmt.Errorf("bit select has width %d", e.W)
		}
	case netlist.OpPart:
		if a[0].W%e.W != 0 {
			return fmt.Errorf("part select of %d-bit fields from a %d-bit operand (not a whole number of fields)", e.W, a[0].W)
		}
	case netlist.OpConcat:
		if len(a) == 0 {
			return errors.New("empty concatenation")
		}
		sum := 0
		for _, x := range a {
			sum += x.W
		}
		if sum != e.W {
			return fmt.Errorf("concatenation of %d bits has width %d", sum, e.W)
		}
	case netlist.OpNot, netlist.OpAnd, netlist.OpOr, netlist.OpXor, netlist.OpAdd:
		if len(a) < 1 || e.Op != netlist.OpNot && len(a) < 2 {
			return fmt.Errorf("%s has %d operands", name, len(a))
		}
		for i, x := range a {
			if x.W != e.W {
				return fmt.Errorf("operand %d of %s is %d bits, want %d", i, name, x.W, e.W)
			}
		}
	case netlist.OpShr, netlist.OpShl:
		if a[0].W != e.W {
			return fmt.Errorf("shifted operand is %d bits, want %d", a[0].W, e.W)
		}
	case netlist.OpMem:
		m := rw.mems[e.Name]
		switch {
		case m == nil:
			return fmt.Errorf("read of unknown memory %q", e.Name)
		case m.Width != e.W:
			return fmt.Errorf("memory %s is %d bits wide but read as %d bits", e.Name, m.Width, e.W)
		case 1<<a[0].W != m.Depth:
			return fmt.Errorf("memory %s of %d words read with a %d-bit address", e.Name, m.Depth, a[0].W)
		}
	case netlist.OpCall:
		fn := rw.funcs[e.Name]
		switch {
		case fn == nil:
			return fmt.Errorf("call of unknown function %q", e.Name)
		case fn.In != a[0].W || fn.Out != e.W:
			return fmt.Errorf("function %s takes %d bits and returns %d, called on %d bits for %d", e.Name, fn.In, fn.Out, a[0].W, e.W)
		}
	case netlist.OpEq, netlist.OpLt:
		if e.W != 1 {
			return fmt.Errorf("%s has width %d", name, e.W)
		}
		if a[0].W != a[1].W {
			return fmt.Errorf("%s compares %d bits with %d bits", name, a[0].W, a[1].W)
		}
	case netlist.OpMux:
		if a[0].W != 1 {
			return fmt.Errorf("?: select is %d bits, want 1", a[0].W)
		}
		if a[1].W != e.W || a[2].W != e.W {
			return fmt.Errorf("?: arms are %d and %d bits, want %d", a[1].W, a[2].W, e.W)
		}
	}
	return nil
}

// use marks bits lo..hi of a named signal as read.
func (rw *rtlWriter) use(name string, lo, hi int) {
	s := rw.sigs[name]
	if s.kind == sigParam {
		s.used[0] = true
		return
	}
	if s.kind == sigOut {
		return
	}
	for i := max(lo, 0); i <= hi && i < len(s.used); i++ {
		s.used[i] = true
	}
}

// expr prints e. bin reports that the text is a binary or conditional
// operation, which must be parenthesized as an operand of another operator.
// e has been checked.
func (rw *rtlWriter) expr(e *netlist.Expr) (text string, bin bool) {
	a := e.Args
	switch e.Op {
	case netlist.OpRef:
		rw.use(e.Name, 0, e.W-1)
		return e.Name, false
	case netlist.OpConst:
		return literal(e.Val, e.W), false
	case netlist.OpSlice:
		return rw.slice(a[0], e.Hi, e.Lo)
	case netlist.OpBit:
		return rw.bit(a[0], a[1])
	case netlist.OpPart:
		return rw.part(a[0], a[1], e.W)
	case netlist.OpConcat:
		if len(a) == 1 {
			return rw.expr(a[0])
		}
		parts := make([]string, len(a))
		for i, x := range a {
			parts[len(a)-1-i], _ = rw.expr(x)
		}
		return "{" + strings.Join(parts, ", ") + "}", false
	case netlist.OpNot:
		s := rw.operand(a[0])
		if strings.HasPrefix(s, "~") {
			s = "(" + s + ")" // "~~" would read as reduction XNOR
		}
		return "~" + s, false
	case netlist.OpAnd, netlist.OpOr, netlist.OpXor, netlist.OpAdd:
		sep := map[netlist.Op]string{netlist.OpAnd: " & ", netlist.OpOr: " | ", netlist.OpXor: " ^ ", netlist.OpAdd: " + "}[e.Op]
		parts := make([]string, len(a))
		for i, x := range a {
			parts[i] = rw.operand(x)
		}
		return strings.Join(parts, sep), true
	case netlist.OpShr:
		if a[0].Op == netlist.OpRef && a[1].Op == netlist.OpConst {
			// A constant shift reads only the bits it keeps.
			if c := constInt(a[1]); c < e.W {
				rw.use(a[0].Name, c, e.W-1)
			}
			return a[0].Name + " >> " + literal(a[1].Val, a[1].W), true
		}
		return rw.operand(a[0]) + " >> " + rw.operand(a[1]), true
	case netlist.OpShl:
		return rw.operand(a[0]) + " << " + rw.operand(a[1]), true
	case netlist.OpMem:
		return e.Name + "[" + rw.plain(a[0]) + "]", false
	case netlist.OpCall:
		return e.Name + "(" + rw.plain(a[0]) + ")", false
	case netlist.OpEq:
		return rw.operand(a[0]) + " == " + rw.operand(a[1]), true
	case netlist.OpLt:
		return rw.operand(a[0]) + " < " + rw.operand(a[1]), true
	case netlist.OpMux:
		return rw.operand(a[0]) + " ? " + rw.operand(a[1]) + " : " + rw.operand(a[2]), true
	}
	panic("rtl: unchecked operator") // check rejects every other op
}

// operand prints e as an operand of another operator.
func (rw *rtlWriter) operand(e *netlist.Expr) string {
	s, bin := rw.expr(e)
	if bin {
		return "(" + s + ")"
	}
	return s
}

// plain prints e where no parentheses are needed (inside [] or {}).
func (rw *rtlWriter) plain(e *netlist.Expr) string {
	s, _ := rw.expr(e)
	return s
}

// constInt is a constant's value, saturated to a large int.
func constInt(e *netlist.Expr) int {
	if e.Val == nil {
		return 0
	}
	if !e.Val.IsInt64() || e.Val.Int64() > 1<<40 {
		return 1 << 40
	}
	return int(e.Val.Int64())
}

// slice prints e[hi:lo]. Verilog selects only from names, so selects of
// constants, slices, concatenations, constant shifts and bitwise operators
// are folded into selects of their operands, and any other operand is
// first assigned to a temporary wire.
func (rw *rtlWriter) slice(e *netlist.Expr, hi, lo int) (string, bool) {
	if lo == 0 && hi == e.W-1 {
		return rw.expr(e)
	}
	w := hi - lo + 1
	a := e.Args
	switch e.Op {
	case netlist.OpRef:
		rw.use(e.Name, lo, hi)
		if hi == lo {
			return fmt.Sprintf("%s[%d]", e.Name, hi), false
		}
		return fmt.Sprintf("%s[%d:%d]", e.Name, hi, lo), false
	case netlist.OpConst:
		v := new(big.Int)
		if e.Val != nil {
			v.Rsh(e.Val, uint(lo))
		}
		mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1))
		return literal(v.And(v, mask), w), false
	case netlist.OpSlice:
		return rw.slice(a[0], hi+e.Lo, lo+e.Lo)
	case netlist.OpConcat:
		var parts []string
		var bin bool
		off := 0
		for _, x := range a {
			xlo, xhi := max(lo, off), min(hi, off+x.W-1)
			if xlo <= xhi {
				var s string
				s, bin = rw.slice(x, xhi-off, xlo-off)
				parts = append([]string{s}, parts...)
			}
			off += x.W
		}
		if len(parts) == 1 {
			return parts[0], bin
		}
		return "{" + strings.Join(parts, ", ") + "}", false
	case netlist.OpShr:
		if a[1].Op == netlist.OpConst {
			c := constInt(a[1])
			if lo+c >= e.W {
				return literalU(0, w), false
			}
			if hi+c < e.W {
				return rw.slice(a[0], hi+c, lo+c)
			}
			s, _ := rw.slice(a[0], e.W-1, lo+c)
			return "{" + literalU(0, hi+c-e.W+1) + ", " + s + "}", false
		}
	case netlist.OpNot:
		s, bin := rw.slice(a[0], hi, lo)
		if bin || strings.HasPrefix(s, "~") {
			s = "(" + s + ")"
		}
		return "~" + s, false
	case netlist.OpAnd, netlist.OpOr, netlist.OpXor, netlist.OpAdd:
		if e.Op == netlist.OpAdd && lo != 0 {
			break // carries flow upwards: only low slices of a sum distribute
		}
		sep := map[netlist.Op]string{netlist.OpAnd: " & ", netlist.OpOr: " | ", netlist.OpXor: " ^ ", netlist.OpAdd: " + "}[e.Op]
		parts := make([]string, len(a))
		for i, x := range a {
			s, bin := rw.slice(x, hi, lo)
			if bin {
				s = "(" + s + ")"
			}
			parts[i] = s
		}
		return strings.Join(parts, sep), true
	case netlist.OpMux:
		s1, b1 := rw.slice(a[1], hi, lo)
		s0, b0 := rw.slice(a[2], hi, lo)
		return rw.operand(a[0]) + " ? " + paren(s1, b1) + " : " + paren(s0, b0), true
	}
	t := rw.hoist(e)
	return rw.slice(t, hi, lo)
}

func paren(s string, bin bool) string {
	if bin {
		return "(" + s + ")"
	}
	return s
}

// hoist assigns e to a new temporary wire and returns a reference to it.
func (rw *rtlWriter) hoist(e *netlist.Expr) *netlist.Expr {
	text := rw.plain(e) // may declare temporaries of its own first
	name := rw.names.take(fmt.Sprintf("%s_tmp%d", rw.cur, rw.ntmp))
	rw.ntmp++
	s := &sig{name: name, kind: sigWire, w: e.W, used: make([]bool, e.W)}
	rw.add(s)
	rw.pre = append(rw.pre,
		fmt.Sprintf("wire %s%s;", declRange(e.W), name),
		fmt.Sprintf("assign %s = %s;", name, text))
	return netlist.Ref(name, e.W)
}

// named returns e itself when it is a reference (a name that can be
// indexed), else a reference to a temporary holding it.
func (rw *rtlWriter) named(e *netlist.Expr) *netlist.Expr {
	if e.Op == netlist.OpRef {
		return e
	}
	return rw.hoist(e)
}

// simple returns idx when it is cheap to print twice (a name or a select
// of one), else a reference to a temporary holding it.
func (rw *rtlWriter) simple(idx *netlist.Expr) *netlist.Expr {
	switch {
	case idx.Op == netlist.OpRef, idx.Op == netlist.OpConst:
		return idx
	case idx.Op == netlist.OpSlice && idx.Args[0].Op == netlist.OpRef:
		return idx
	}
	return rw.hoist(idx)
}

// resized returns the parts (most significant first) of a concatenation
// that gives idx exactly k bits: zero-extended, or truncated when the
// caller has already ruled out the values that truncation would change.
func (rw *rtlWriter) resized(idx *netlist.Expr, k int) []string {
	switch {
	case idx.W == k:
		return []string{rw.plain(idx)}
	case idx.W < k:
		return []string{literalU(0, k-idx.W), rw.plain(idx)}
	}
	s, _ := rw.slice(idx, k-1, 0)
	return []string{s}
}

func concatText(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// needGuard reports whether an index of idxW bits can reach n or more.
func needGuard(idxW, n int) bool { return idxW >= 62 || 1<<idxW > n }

// guard wraps an in-range value: (idx < n) ? in : 0.
func (rw *rtlWriter) guard(idx *netlist.Expr, n int, in string, w int) (string, bool) {
	cmp := fmt.Sprintf("%s < %s", rw.operand(idx), literalU(uint64(n), idx.W))
	if n == 1 {
		cmp = fmt.Sprintf("%s == %s", rw.operand(idx), literalU(0, idx.W))
	}
	return fmt.Sprintf("(%s) ? %s : %s", cmp, in, literalU(0, w)), true
}

// fieldArray returns the name of an array of v's fields of w bits
// (element i is v[i*w +: w]), declaring it and its assignments before the
// current statement the first time.
func (rw *rtlWriter) fieldArray(v *netlist.Expr, w int) string {
	key := fieldKey{v.Name, w}
	if name, ok := rw.fields[key]; ok {
		return name
	}
	if rw.fields == nil {
		rw.fields = map[fieldKey]string{}
	}
	n := v.W / w
	name := rw.names.take(fmt.Sprintf("%s_by%d", v.Name, w))
	i := rw.names.take(name + "_i")
	rw.fields[key] = name
	rw.use(v.Name, 0, n*w-1)
	rw.pre = append(rw.pre,
		fmt.Sprintf("// %s as %d fields of %d bits, for the selects by index below", v.Name, n, w),
		fmt.Sprintf("wire %s%s [0:%d];", declRange(w), name, n-1),
		fmt.Sprintf("genvar %s;", i),
		"generate",
		fmt.Sprintf("    for (%s = 0; %s < %d; %s = %s + 1) begin : %s_fields", i, i, n, i, i, name),
		fmt.Sprintf("        assign %s[%s] = %s[%s*%d +: %d];", name, i, v.Name, i, w, w),
		"    end",
		"endgenerate")
	return name
}

// bit prints v[idx] with out-of-range indices reading 0. The index is
// printed with exactly the width Verilator expects for v (clog2 of its
// width), zero-extended or truncated under the range guard.
func (rw *rtlWriter) bit(v, idx *netlist.Expr) (string, bool) {
	if idx.Op == netlist.OpConst {
		if i := constInt(idx); i < v.W {
			return rw.slice(v, i, i)
		}
		return literalU(0, 1), false
	}
	guarded := needGuard(idx.W, v.W)
	if guarded {
		idx = rw.simple(idx)
	}
	var in string
	if v.W == 1 {
		in = rw.operand(v)
	} else {
		vn := rw.named(v)
		in = rw.plain(vn) + "[" + concatText(rw.resized(idx, clog2(v.W))) + "]"
	}
	if guarded {
		return rw.guard(idx, v.W, in, 1)
	}
	return in, false
}

// part prints v[idx*w +: w] with out-of-range fields reading 0. The base
// is a {idx, 0...} concatenation for power-of-two w and idx*W otherwise,
// either way exactly clog2(width of v) bits wide.
func (rw *rtlWriter) part(v, idx *netlist.Expr, w int) (string, bool) {
	n := v.W / w
	if idx.Op == netlist.OpConst {
		if i := constInt(idx); i < n {
			return rw.slice(v, i*w+w-1, i*w)
		}
		return literalU(0, w), false
	}
	if w == 1 {
		return rw.bit(v, idx)
	}
	guarded := needGuard(idx.W, n)
	if guarded {
		idx = rw.simple(idx)
	}
	var in string
	switch {
	case n == 1:
		in = rw.operand(v)
	case v.Op != netlist.OpRef || rw.sigs[v.Name].kind != sigParam:
		// A net: index an array view of its fields. A select at a
		// run-time base ({idx, 0} +: w) reads as a shifter of the whole
		// bus to Yosys, whose techmap makes it log2(width) layers of
		// multiplexers over every bit (4.6 M cells, 8.6 GB, on the 48 KB
		// shared memory); an array read is one n-way multiplexer a field.
		in = rw.fieldArray(rw.named(v), w) + "[" + concatText(rw.resized(idx, clog2(n))) + "]"
	default: // a localparam table: a constant, which no tool multiplexes
		k := clog2(v.W)
		var base string
		if s := clog2(w); 1<<s == w {
			base = "{" + strings.Join(append(rw.resized(idx, k-s), literalU(0, s)), ", ") + "}"
		} else {
			base = concatText(rw.resized(idx, k)) + " * " + literalU(uint64(w), k)
		}
		in = fmt.Sprintf("%s[%s +: %d]", rw.plain(v), base, w)
	}
	if guarded {
		return rw.guard(idx, n, in, w)
	}
	return in, false
}

// paramPiece is the width of the pieces a long localparam is printed in.
const paramPiece = 256

// localparam declares p, a table wider than a line (a rap scheme's shift
// table: 1536 bits for an 8⁴ RAS unit) as a concatenation of 256-bit
// pieces, most significant first, one a line.
func localparam(f *file, p netlist.Param) {
	decl := fmt.Sprintf("    localparam %s %s = ", rangeOf0(p.Width), p.Name)
	lit := literal(p.Value, p.Width)
	if len(decl)+len(lit)+1 <= maxLine || p.Width <= paramPiece {
		f.line("%s%s;", decl, lit)
		return
	}
	f.line("%s{", decl)
	v := p.Value
	if v == nil {
		v = new(big.Int)
	}
	for hi := p.Width; hi > 0; {
		w := hi % paramPiece
		if w == 0 {
			w = paramPiece
		}
		lo := hi - w
		piece := new(big.Int).Rsh(v, uint(lo))
		piece.And(piece, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1)))
		sep := ","
		if lo == 0 {
			sep = ""
		}
		f.line("        %s%s // bits %d:%d", literal(piece, w), sep, hi-1, lo)
		hi = lo
	}
	f.line("    };")
}
