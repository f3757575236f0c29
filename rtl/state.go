package rtl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// declareState checks the registers and memories of the word-level view
// and reserves their names; registers become referable signals.
func (rw *rtlWriter) declareState() error {
	d := rw.d
	r := d.RTL
	if len(r.Regs)+len(r.Mems) == 0 {
		return nil
	}
	if clk := rw.sigs[d.Clock]; d.Clock == "" || clk == nil || clk.kind != sigIn || clk.w != 1 {
		return fmt.Errorf("rtl: %s: registers need a one-bit clock input port, and the clock is %q", d.Name, d.Clock)
	}
	for _, g := range r.Regs {
		if err := rw.newName(g.Name, "reg"); err != nil {
			return err
		}
		if g.Width < 1 {
			return fmt.Errorf("rtl: %s: reg %s has width %d", d.Name, g.Name, g.Width)
		}
		rw.add(&sig{name: g.Name, kind: sigReg, w: g.Width, used: make([]bool, g.Width)})
	}
	for i := range r.Mems {
		m := &r.Mems[i]
		if err := rw.newName(m.Name, "memory"); err != nil {
			return err
		}
		if m.Width < 1 || m.Depth < 2 || m.Depth&(m.Depth-1) != 0 {
			return fmt.Errorf("rtl: %s: memory %s is %d words of %d bits (want a power of two >= 2 words)", d.Name, m.Name, m.Depth, m.Width)
		}
		rw.mems[m.Name] = m
	}
	return nil
}

// stateDecls declares the registers and memories, before the assigns that
// read them. A register without a Doc belongs to the group of the one
// before it (a pipeline's registers at one boundary): no blank line
// between them.
func (rw *rtlWriter) stateDecls(f *file) {
	for i, g := range rw.d.RTL.Regs {
		if i == 0 || strings.TrimSpace(g.Doc) != "" {
			f.blank()
		}
		f.doc("    ", g.Doc)
		f.line("    reg %s%s;", declRange(g.Width), g.Name)
	}
	for _, m := range rw.d.RTL.Mems {
		f.blank()
		f.doc("    ", m.Doc)
		f.line("    reg %s%s [0:%d];", declRange(m.Width), m.Name, m.Depth-1)
	}
}

// stateUpdates prints the registers' always blocks, one per group
// (stateDecls), and one per memory.
func (rw *rtlWriter) stateUpdates(f *file) error {
	d := rw.d
	if len(d.RTL.Regs)+len(d.RTL.Mems) == 0 {
		return nil
	}
	rw.sigs[d.Clock].used[0] = true
	open := false
	for i, g := range d.RTL.Regs {
		pre, body, err := rw.regUpdate(g)
		if err != nil {
			return fmt.Errorf("rtl: %s: reg %s: %w", d.Name, g.Name, err)
		}
		if open && (len(pre) > 0 || strings.TrimSpace(g.Doc) != "") {
			f.line("    end")
			open = false
		}
		if !open {
			f.blank()
			for _, l := range pre {
				f.line("    %s", l)
			}
			f.line("    always @(posedge %s) begin", rw.d.Clock)
			open = true
		}
		for _, l := range body {
			f.line("        %s", l)
		}
		if i == len(d.RTL.Regs)-1 {
			f.line("    end")
		}
	}
	for _, m := range d.RTL.Mems {
		if err := rw.memUpdate(f, m); err != nil {
			return fmt.Errorf("rtl: %s: memory %s: %w", d.Name, m.Name, err)
		}
	}
	return nil
}

func (rw *rtlWriter) checkWidth(e *netlist.Expr, w int, what string) error {
	if e == nil {
		return fmt.Errorf("no %s expression", what)
	}
	if err := rw.check(e); err != nil {
		return err
	}
	if e.W != w {
		return fmt.Errorf("%s is %d bits, want %d", what, e.W, w)
	}
	return nil
}

// regUpdate is g's lines in an always block, and the temporaries they
// read (to declare before the block).
func (rw *rtlWriter) regUpdate(g netlist.Reg) (pre, body []string, err error) {
	if err := rw.checkWidth(g.Next, g.Width, "next value"); err != nil {
		return nil, nil, err
	}
	if g.Clear != nil {
		if err := rw.checkWidth(g.Clear, 1, "clear condition"); err != nil {
			return nil, nil, err
		}
	}
	rw.cur, rw.ntmp, rw.pre = g.Name, 0, nil
	var clear string
	if g.Clear != nil {
		clear = rw.plain(g.Clear)
	}
	next := rw.plain(g.Next)
	if g.Clear != nil {
		body = []string{fmt.Sprintf("if (%s) %s <= %s;", clear, g.Name, literalU(0, g.Width)), fmt.Sprintf("else %s <= %s;", g.Name, next)}
	} else {
		body = []string{fmt.Sprintf("%s <= %s;", g.Name, next)}
	}
	return rw.pre, body, nil
}

func (rw *rtlWriter) memUpdate(f *file, m netlist.Mem) error {
	if m.Addr == nil {
		return errors.New("no address expression")
	}
	if err := rw.checkWidth(m.When, 1, "write enable"); err != nil {
		return err
	}
	if err := rw.checkWidth(m.Addr, clog2(m.Depth), "address"); err != nil {
		return err
	}
	if err := rw.checkWidth(m.Data, m.Width, "write data"); err != nil {
		return err
	}
	rw.cur, rw.ntmp, rw.pre = m.Name, 0, nil
	when, addr, data := rw.plain(m.When), rw.plain(m.Addr), rw.plain(m.Data)
	f.blank()
	for _, l := range rw.pre {
		f.line("    %s", l)
	}
	f.line("    always @(posedge %s) begin", rw.d.Clock)
	f.line("        if (%s) %s[%s] <= %s;", when, m.Name, addr, data)
	f.line("    end")
	return nil
}
