package netlist

import "math/big"

// RTL is the word-level view of a design: named constants and a list of
// continuous assignments over the design's ports and local wires, in
// dependency order. Package rtl prints it as readable Verilog-2005.
type RTL struct {
	Params  []Param
	Assigns []Assign
	// Regs and Mems are the state of a sequential design, clocked by the
	// design's Clock port. Expressions may reference them anywhere.
	Regs []Reg
	Mems []Mem
	// Funcs are functions that Assigns call (OpCall), declared before
	// them.
	Funcs []Func
}

// Func is `function [Out-1:0] Name; input [In-1:0] x; ...`: one-bit
// locals assigned in order, each Expr over the input (Ref(FuncInput, In))
// and the locals before it, and the result, Out bits over the locals.
// Readable views use one for logic that several entries repeat gate for
// gate.
type Func struct {
	Name    string
	In, Out int
	Locals  []FuncLocal
	Result  *Expr
	Doc     string
}

// FuncLocal is a one-bit local of a Func.
type FuncLocal struct {
	Name string
	Expr *Expr
}

// FuncInput is the name of a Func's input inside its body.
const FuncInput = "x"

// Reg is a register, `reg [Width-1:0] Name;`, loaded with Next at every
// rising clock edge, or with 0 when Clear (a one-bit expression; nil for
// none) is 1.
type Reg struct {
	Name  string
	Width int
	Clear *Expr
	Next  *Expr
	Doc   string
}

// Mem is a memory, `reg [Width-1:0] Name [0:Depth-1];`, with one write
// port: at a rising clock edge where When is 1, word Addr gets Data. It is
// never cleared (its words start unknown), so readers must qualify what
// they read, e.g. with valid bits held in a Reg. Depth is 2^(Addr width).
type Mem struct {
	Name             string
	Width, Depth     int
	When, Addr, Data *Expr
	Doc              string
}

// Param is a localparam: a named constant of a given width.
type Param struct {
	Name  string
	Width int
	Value *big.Int
	Doc   string
}

// Assign is `assign Name = Expr;`. When Wire is set, Name is a local wire
// of Expr's width declared just before; otherwise Name is an output port.
//
// When Inst is set the entry is a module instance instead, named Name:
// its inputs take expressions and each output drives a new local wire
// that later entries may read.
type Assign struct {
	Name string
	Wire bool
	Expr *Expr
	Doc  string
	Inst *InstanceRTL
	// Nets are a wire's nets where the gates do not name them after it
	// (a part of an expression that a pipeliner named, Expr.Nets).
	Nets Bus
	// Compact writes a wire as one line, declared and assigned, with no
	// blank line before it unless it has a Doc: a gate of a view written
	// gate by gate.
	Compact bool
}

// InstanceRTL is the word-level view of an Instance: the module and a
// connection for each of its ports, in the module's port order.
type InstanceRTL struct {
	Module string
	Ports  []PortConn
}

// PortConn connects one port of an instance, W bits wide: an input to
// the value of In, an output to a new local wire named Wire.
type PortConn struct {
	Port string
	In   *Expr
	Wire string
	W    int
}

// Op is a word-level operator.
type Op uint8

const (
	OpRef    Op = iota // a port, wire or param: Name, W
	OpConst            // an unsigned constant: Val, W
	OpSlice            // Args[0][Hi:Lo]
	OpBit              // Args[0][Args[1]]: a bit chosen at run time
	OpPart             // Args[0][Args[1]*W +: W]: a field chosen at run time
	OpConcat           // {Args[n-1], ..., Args[0]}: Args[0] is least significant
	OpNot              // ~Args[0]
	OpAnd              // Args[0] & Args[1] & ...
	OpOr               // Args[0] | Args[1] | ...
	OpXor              // Args[0] ^ Args[1] ^ ...
	OpAdd              // Args[0] + Args[1], truncated to W
	OpShr              // Args[0] >> Args[1], logical
	OpEq               // Args[0] == Args[1], one bit
	OpMux              // Args[0] ? Args[1] : Args[2]
	OpLt               // Args[0] < Args[1], unsigned, one bit
	OpShl              // Args[0] << Args[1], logical, truncated to W
	OpMem              // Name[Args[0]]: a read of memory Name, W = its width
	OpCall             // Name(Args[0]): a call of function Name (RTL.Funcs), W = its result's width
)

// Expr is a word-level expression of width W.
type Expr struct {
	Op     Op
	W      int
	Name   string
	Val    *big.Int
	Hi, Lo int
	Args   []*Expr
	// Nets, when a generator sets it, are the nets of the design's gates
	// that compute this value (bit 0 first): a pipeliner may cut a long
	// expression there, naming the part a wire of its own. The writers
	// ignore it.
	Nets Bus
}

// Ref refers to a named signal of width w.
func Ref(name string, w int) *Expr { return &Expr{Op: OpRef, Name: name, W: w} }

// ConstExpr is the constant v of width w.
func ConstExpr(v uint64, w int) *Expr {
	return &Expr{Op: OpConst, W: w, Val: new(big.Int).SetUint64(v)}
}

// Slice is e[hi:lo].
func Slice(e *Expr, hi, lo int) *Expr {
	return &Expr{Op: OpSlice, W: hi - lo + 1, Hi: hi, Lo: lo, Args: []*Expr{e}}
}

// BitAt is e[idx], idx evaluated at run time.
func BitAt(e, idx *Expr) *Expr { return &Expr{Op: OpBit, W: 1, Args: []*Expr{e, idx}} }

// PartAt is e[idx*w +: w], idx evaluated at run time.
func PartAt(e, idx *Expr, w int) *Expr { return &Expr{Op: OpPart, W: w, Args: []*Expr{e, idx}} }

// Concat joins parts, parts[0] least significant.
func Concat(parts ...*Expr) *Expr {
	w := 0
	for _, p := range parts {
		w += p.W
	}
	return &Expr{Op: OpConcat, W: w, Args: parts}
}

// Unary and n-ary operators keep the width of their first operand.
func NotE(e *Expr) *Expr      { return &Expr{Op: OpNot, W: e.W, Args: []*Expr{e}} }
func AndE(e ...*Expr) *Expr   { return &Expr{Op: OpAnd, W: e[0].W, Args: e} }
func OrE(e ...*Expr) *Expr    { return &Expr{Op: OpOr, W: e[0].W, Args: e} }
func XorE(e ...*Expr) *Expr   { return &Expr{Op: OpXor, W: e[0].W, Args: e} }
func AddE(a, c *Expr) *Expr   { return &Expr{Op: OpAdd, W: a.W, Args: []*Expr{a, c}} }
func ShrE(a, amt *Expr) *Expr { return &Expr{Op: OpShr, W: a.W, Args: []*Expr{a, amt}} }
func ShlE(a, amt *Expr) *Expr { return &Expr{Op: OpShl, W: a.W, Args: []*Expr{a, amt}} }

// Call calls function name, whose result is w bits, on arg.
func Call(name string, w int, arg *Expr) *Expr {
	return &Expr{Op: OpCall, Name: name, W: w, Args: []*Expr{arg}}
}

// MemE reads word addr of memory name, which is w bits wide.
func MemE(name string, w int, addr *Expr) *Expr {
	return &Expr{Op: OpMem, Name: name, W: w, Args: []*Expr{addr}}
}
func EqE(a, c *Expr) *Expr { return &Expr{Op: OpEq, W: 1, Args: []*Expr{a, c}} }
func LtE(a, c *Expr) *Expr { return &Expr{Op: OpLt, W: 1, Args: []*Expr{a, c}} }

// MuxE is sel ? a1 : a0.
func MuxE(sel, a1, a0 *Expr) *Expr { return &Expr{Op: OpMux, W: a1.W, Args: []*Expr{sel, a1, a0}} }

// GateExpr is the function of a gate of kind k over its input
// expressions (Kinds[k].Fn), for readable views printed gate by gate; nil
// for a DFF.
func GateExpr(k Kind, in []*Expr) *Expr { return Kinds[k].Fn.Expr(in) }

// VisitRefs calls f on every reference (OpRef) in e, which may be nil.
func VisitRefs(e *Expr, f func(ref *Expr)) {
	if e == nil {
		return
	}
	if e.Op == OpRef {
		f(e)
	}
	for _, a := range e.Args {
		VisitRefs(a, f)
	}
}

// MapRefs is e with every reference replaced by f's answer for it (f
// returns the reference itself to keep it), e itself where nothing
// changes; the other nodes are copied only on the way to a change.
func MapRefs(e *Expr, f func(ref *Expr) *Expr) *Expr {
	if e == nil {
		return nil
	}
	if e.Op == OpRef {
		return f(e)
	}
	var args []*Expr
	for i, a := range e.Args {
		if na := MapRefs(a, f); na != a {
			if args == nil {
				args = append([]*Expr(nil), e.Args...)
			}
			args[i] = na
		}
	}
	if args == nil {
		return e
	}
	c := *e
	c.Args = args
	return &c
}
