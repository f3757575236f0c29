// Package verilog holds facts about the Verilog language that several
// stages need: the reserved words. It is a leaf, so the spec loader can
// refuse a unit name without importing the RTL writer.
package verilog

import "strings"

// reserved holds the words no generated identifier may be: Verilog-2005 and
// SystemVerilog-2017 keywords (Verilator parses .v files as SystemVerilog
// by default) and the C++ words on which Verilator warns SYMRSVDWORD.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{verilogKeywords, systemVerilogKeywords, cppWords} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
}()

const verilogKeywords = `
always and assign automatic begin buf bufif0 bufif1 case casex casez cell
cmos config deassign default defparam design disable edge else end endcase
endconfig endfunction endgenerate endmodule endprimitive endspecify endtable
endtask event for force forever fork function generate genvar highz0 highz1
if ifnone incdir include initial inout input instance integer join large
liblist library localparam macromodule medium module nand negedge nmos nor
noshowcancelled not notif0 notif1 or output parameter pmos posedge primitive
pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent rcmos real
realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared
showcancelled signed small specify specparam strong0 strong1 supply0 supply1
table task time tran tranif0 tranif1 tri tri0 tri1 triand trior trireg
unsigned use uwire vectored wait wand weak0 weak1 while wire wor xnor xor`

const systemVerilogKeywords = `
accept_on alias always_comb always_ff always_latch assert assume before bind
bins binsof bit break byte chandle checker class clocking const constraint
context continue cover covergroup coverpoint cross dist do endchecker endclass
endclocking endgroup endinterface endpackage endprogram endproperty
endsequence enum eventually expect export extends extern final first_match
foreach forkjoin global iff ignore_bins illegal_bins implements implies import
inside int interconnect interface intersect join_any join_none let local
logic longint matches modport nettype new nexttime null package packed
priority program property protected pure rand randc randcase randsequence ref
reject_on restrict return s_always s_eventually s_nexttime s_until
s_until_with sequence shortint shortreal soft solve static string strong
struct super sync_accept_on sync_reject_on tagged this throughout timeprecision
timeunit type typedef union unique unique0 until until_with untyped var
virtual void wait_order weak wildcard with within`

const cppWords = `
NULL abort alignas alignof and and_eq asm atomic_cancel atomic_commit
atomic_noexcept auto bit_vector bitand bitor bool break case catch cdecl char
char8_t char16_t char32_t class co_await co_return co_yield compl complex
concept const const_cast const_iterator const_reference consteval constexpr
constinit continue decltype default delete deque do double dynamic_cast else
enum explicit export extern false far float for friend goto huge if import
inline int interrupt iterator list long map module mutable namespace near new
noexcept not not_eq nullptr operator or or_eq override pascal private
protected public queue reference register reinterpret_cast requires restrict
return set short signed sizeof stack static static_assert static_cast struct
switch synchronized template this thread_local throw transaction_safe
transaction_safe_dynamic true try type_info typedef typeid typename uint16_t
uint32_t uint64_t uint8_t union unsigned using vector virtual void volatile
wchar_t while xor xor_eq sc_clock sc_in sc_inout sc_out sc_signal sensitive
sensitive_neg sensitive_pos`

// IsReserved reports whether s is a word no generated identifier may be:
// rtl's namer avoids them and the spec loader refuses such unit names.
func IsReserved(s string) bool { return reserved[s] }
