package formal

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// stateWord is one register of the RTL module, or one word of an RTL
// memory, with the gate-level flip-flops that hold its bits: the register
// correspondence of the two modules, which lsugen knows from the design.
//
// In the RTL's AIGER file the flip-flops are named after the registers
// (tag) and, after Yosys's memory_map, the memory words (he0[3]). The gate
// writer names each flip-flop after its RTL bit: tag_3 for bit 3 of a
// multi-bit register, tag for a one-bit one, he0_3_5 for bit 5 of word 3
// of memory he0 (he0_3 when the memory is one bit wide).
type stateWord struct {
	gold  string   // RTL register or memory word: "tag", "he0[3]"
	gates []string // gate-level flip-flop of each bit, least significant first
}

// stateWords lists the state of d's word-level view, registers first,
// then memories word by word. It refuses a design whose flip-flop count
// differs from it. Memory macros (d.Memories) are not state here: their
// bits are no flip-flops, and the proof treats the banks as black boxes.
func stateWords(d *netlist.Design) ([]stateWord, error) {
	if d.RTL == nil {
		return nil, fmt.Errorf("no word-level view, which the register correspondence comes from")
	}
	bits := func(base string, w int) []string {
		if w == 1 {
			return []string{base}
		}
		s := make([]string, w)
		for i := range s {
			s[i] = fmt.Sprintf("%s_%d", base, i)
		}
		return s
	}
	var ws []stateWord
	n := 0
	for _, r := range d.RTL.Regs {
		ws = append(ws, stateWord{gold: r.Name, gates: bits(r.Name, r.Width)})
		n += r.Width
	}
	for _, m := range d.RTL.Mems {
		for i := 0; i < m.Depth; i++ {
			ws = append(ws, stateWord{gold: fmt.Sprintf("%s[%d]", m.Name, i), gates: bits(fmt.Sprintf("%s_%d", m.Name, i), m.Width)})
			n += m.Width
		}
	}
	if dffs := d.Stats()[netlist.DFF]; n != dffs {
		return nil, fmt.Errorf("the RTL holds %d state bits and the gate netlist %d flip-flops: no register correspondence", n, dffs)
	}
	return ws, nil
}

// quote writes a file name as the last argument of a Yosys command (Yosys
// unquotes only those, not option values).
func quote(path string) string { return `"` + path + `"` }

// flatten inlines the instances of other units, so that the two sides
// compare as flat designs.
func flatten(add func(string, ...any), d *netlist.Design) {
	if len(d.Instances) > 0 {
		add("flatten")
	}
}

// blackboxBanks makes the bank module of d's memories a black box, read
// for its ports only (its array is not proved here).
func blackboxBanks(add func(string, ...any), d *netlist.Design) {
	if len(d.Memories) > 0 {
		add("# The memory banks are black boxes: matched by their ports, not proved.")
		add("blackbox %s", d.Memories[0].Module)
	}
}

// exposeBanks removes each bank instance and makes its ports the
// module's: read data an input, the bank's inputs outputs, named
// INSTANCE.PORT (bank3.rdata_o).
func exposeBanks(add func(string, ...any), d *netlist.Design) {
	if len(d.Memories) > 0 {
		add("expose -evert t:%s", d.Memories[0].Module)
	}
}

// graphScripts are the two Yosys scripts (RTL, gates), run at once, that
// each read one module and write it as a JSON netlist with its cells'
// and-inverter models (graphTail), which loadJSONSide builds the graph
// from; lsugen builds the miter from the two graphs.
//
// `check -assert` refuses a net with no driver or with two: Yosys would
// otherwise read the first as a free input and merge the two drivers of
// the second into one net, and a broken netlist could pass.
//
// cutSel, when given, are the selection files of the equivalence points
// (see cutWires and cutSelections) that the two scripts cut at.
func graphScripts(d *netlist.Design, rtlFiles, gatesFiles []string, rtlOut, gatesOut string, cutSel [2]string) [2]string {
	var s []string
	add := func(f string, a ...any) { s = append(s, fmt.Sprintf(f, a...)) }
	add("# Written by lsugen verify --formal: %s (RTL) as a graph.", d.Name)
	add("# Output names are in the work directory: Yosys does not unquote option values.")
	for _, f := range rtlFiles {
		add("read_verilog %s", quote(f))
	}
	blackboxBanks(add, d)
	add("hierarchy -check -top %s", d.Name)
	flatten(add, d)
	add("proc")
	exposeBanks(add, d)
	exposeCuts(add, cutSel[0])
	if d.Clock != "" {
		add("# A memory becomes one register per word, named NAME[WORD].")
		add("memory_collect")
		add("memory_map")
		add("# proc leaves dead flip-flops on the memory writes' enable, address and data.")
		add("opt_clean")
	}
	add("check -assert")
	add("select -assert-none t:$*latch* t:$*LATCH* t:$mem* t:$sr t:$_SR_*")
	graphTail(add, rtlOut)
	var out [2]string
	out[0] = strings.Join(s, "\n") + "\n"
	s = nil
	add("# Written by lsugen verify --formal: %s (gates) as a graph.", rtl.GatesModuleName(d))
	for _, f := range gatesFiles {
		add("read_verilog %s", quote(f))
	}
	blackboxBanks(add, d)
	add("hierarchy -check -top %s", rtl.GatesModuleName(d))
	flatten(add, d)
	if d.Clock != "" {
		add("proc")
		exposeBanks(add, d)
	} else {
		add("# A combinational netlist is continuous assigns: proc would only scan it")
		add("# (seconds on the largest), so a process in it is refused instead.")
		add("select -assert-none p:*")
	}
	exposeCuts(add, cutSel[1])
	add("check -assert")
	add("select -assert-none t:$*latch* t:$*LATCH* t:$mem* t:$sr t:$_SR_*")
	if d.Clock != "" {
		add("# As in the RTL: a flip-flop nothing reads is dropped (its bit is then unobservable).")
		add("opt_clean")
	}
	graphTail(add, gatesOut)
	out[1] = strings.Join(s, "\n") + "\n"
	return out
}
