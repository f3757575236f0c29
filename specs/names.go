package specs

import "fmt"

// maxUnitNameLen bounds unit names, which become module and file names.
const maxUnitNameLen = 64

// checkUnitName returns why name cannot be a unit name, or "" if it can:
// it must be a simple Verilog identifier that is not a keyword.
func checkUnitName(name string) string {
	switch {
	case name == "":
		return "A unit name must not be empty"
	case len(name) > maxUnitNameLen:
		return fmt.Sprintf("The unit name %q is longer than %d characters", name[:maxUnitNameLen]+"...", maxUnitNameLen)
	case verilogKeywords[name]:
		return fmt.Sprintf("%q is a reserved Verilog keyword and cannot be a unit name", name)
	}
	for i, c := range name {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if !letter && !(digit && i > 0) {
			return fmt.Sprintf("%q is not a Verilog identifier: use letters, digits and _, starting with a letter or _", name)
		}
	}
	return ""
}

// verilogKeywords are the reserved words of Verilog (IEEE 1364-2005) and
// SystemVerilog (IEEE 1800-2017), since generated modules may be read by
// either kind of tool.
var verilogKeywords = func() map[string]bool {
	words := []string{
		// Verilog-2005
		"always", "and", "assign", "automatic", "begin", "buf", "bufif0", "bufif1",
		"case", "casex", "casez", "cell", "cmos", "config", "deassign", "default",
		"defparam", "design", "disable", "edge", "else", "end", "endcase",
		"endconfig", "endfunction", "endgenerate", "endmodule", "endprimitive",
		"endspecify", "endtable", "endtask", "event", "for", "force", "forever",
		"fork", "function", "generate", "genvar", "highz0", "highz1", "if",
		"ifnone", "incdir", "include", "initial", "inout", "input", "instance",
		"integer", "join", "large", "liblist", "library", "localparam",
		"macromodule", "medium", "module", "nand", "negedge", "nmos", "nor",
		"noshowcancelled", "not", "notif0", "notif1", "or", "output", "parameter",
		"pmos", "posedge", "primitive", "pull0", "pull1", "pulldown", "pullup",
		"pulsestyle_ondetect", "pulsestyle_onevent", "rcmos", "real", "realtime",
		"reg", "release", "repeat", "rnmos", "rpmos", "rtran", "rtranif0",
		"rtranif1", "scalared", "showcancelled", "signed", "small", "specify",
		"specparam", "strong0", "strong1", "supply0", "supply1", "table", "task",
		"time", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand",
		"trior", "trireg", "unsigned", "use", "uwire", "vectored", "wait", "wand",
		"weak0", "weak1", "while", "wire", "wor", "xnor", "xor",
		// SystemVerilog additions
		"accept_on", "alias", "always_comb", "always_ff", "always_latch", "assert",
		"assume", "before", "bind", "bins", "binsof", "bit", "break", "byte",
		"chandle", "checker", "class", "clocking", "const", "constraint",
		"context", "continue", "cover", "covergroup", "coverpoint", "cross",
		"dist", "do", "endchecker", "endclass", "endclocking", "endgroup",
		"endinterface", "endpackage", "endprogram", "endproperty", "endsequence",
		"enum", "eventually", "expect", "export", "extends", "extern", "final",
		"first_match", "foreach", "forkjoin", "global", "iff", "ignore_bins",
		"illegal_bins", "implements", "implies", "import", "inside", "int",
		"interconnect", "interface", "intersect", "join_any", "join_none", "let",
		"local", "logic", "longint", "matches", "modport", "nettype", "new",
		"nexttime", "null", "package", "packed", "priority", "program",
		"property", "protected", "pure", "rand", "randc", "randcase",
		"randsequence", "ref", "reject_on", "restrict", "return", "s_always",
		"s_eventually", "s_nexttime", "s_until", "s_until_with", "sequence",
		"shortint", "shortreal", "soft", "solve", "static", "string", "strong",
		"struct", "super", "sync_accept_on", "sync_reject_on", "tagged", "this",
		"throughout", "timeprecision", "timeunit", "type", "typedef", "union",
		"unique", "unique0", "until", "until_with", "untyped", "var", "virtual",
		"void", "wait_order", "weak", "wildcard", "with", "within",
	}
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()
