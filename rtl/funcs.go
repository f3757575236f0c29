package rtl

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// declareFuncs reserves the functions' names, before any wire's.
func (rw *rtlWriter) declareFuncs() error {
	rw.funcs = map[string]*netlist.Func{}
	for i := range rw.d.RTL.Funcs {
		fn := &rw.d.RTL.Funcs[i]
		if err := rw.newName(fn.Name, "function"); err != nil {
			return err
		}
		if fn.In < 1 || fn.Out < 1 || len(fn.Locals) == 0 || fn.Result == nil {
			return fmt.Errorf("rtl: %s: function %s: %d input bits, %d result bits, %d locals", rw.d.Name, fn.Name, fn.In, fn.Out, len(fn.Locals))
		}
		rw.funcs[fn.Name] = fn
	}
	return nil
}

// function prints fn: its input x, its one-bit locals assigned in order,
// and its result. Its body sees only x and its locals.
func (rw *rtlWriter) function(f *file, fn *netlist.Func) error {
	saved := rw.sigs
	rw.inFunc = true
	defer func() { rw.sigs, rw.inFunc = saved, false }()
	in := &sig{name: netlist.FuncInput, kind: sigWire, w: fn.In, used: make([]bool, fn.In)}
	rw.sigs = map[string]*sig{in.name: in}
	f.blank()
	f.doc("    ", fn.Doc)
	f.line("    function %s%s;", declRange(fn.Out), fn.Name)
	f.line("        input %s%s;", declRange(fn.In), netlist.FuncInput)
	names := make([]string, len(fn.Locals))
	for i, l := range fn.Locals {
		names[i] = l.Name
	}
	for len(names) > 0 {
		k := min(len(names), 12)
		f.line("        reg %s;", strings.Join(names[:k], ", "))
		names = names[k:]
	}
	f.line("        begin")
	body := func(name string, e *netlist.Expr, w int) error {
		rw.cur, rw.ntmp, rw.pre = name, 0, nil
		if err := rw.check(e); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if e.W != w {
			return fmt.Errorf("%s: %d bits, want %d", name, e.W, w)
		}
		text := rw.plain(e)
		if len(rw.pre) > 0 {
			return fmt.Errorf("%s: the expression needs a temporary wire, which a function cannot declare", name)
		}
		f.line("            %s = %s;", name, text)
		return nil
	}
	for _, l := range fn.Locals {
		if rw.sigs[l.Name] != nil || l.Name == fn.Name {
			return fmt.Errorf("rtl: %s: function %s: local %s declared twice", rw.d.Name, fn.Name, l.Name)
		}
		if err := body(l.Name, l.Expr, 1); err != nil {
			return fmt.Errorf("rtl: %s: function %s: %w", rw.d.Name, fn.Name, err)
		}
		rw.sigs[l.Name] = &sig{name: l.Name, kind: sigWire, w: 1, used: make([]bool, 1)}
	}
	if err := body(fn.Name, fn.Result, fn.Out); err != nil {
		return fmt.Errorf("rtl: %s: function %s: %w", rw.d.Name, fn.Name, err)
	}
	f.line("        end")
	f.line("    endfunction")
	// Lint flags what a function leaves unread.
	if !allTrue(in.used) {
		return fmt.Errorf("rtl: %s: function %s does not read all of its input", rw.d.Name, fn.Name)
	}
	for _, l := range fn.Locals {
		if !rw.sigs[l.Name].used[0] {
			return fmt.Errorf("rtl: %s: function %s does not read its local %s", rw.d.Name, fn.Name, l.Name)
		}
	}
	return nil
}
