package rtl

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/verilog"
)

// validIdent reports whether s is a plain Verilog identifier that needs no
// escaping: [A-Za-z_][A-Za-z0-9_]*. ($ is legal but avoided.)
func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// sanitize turns s into a plain identifier: runs of other characters
// become one underscore, and a leading digit gets an "n_" prefix.
func sanitize(s string) string {
	var sb strings.Builder
	under := false
	for _, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if ok {
			sb.WriteRune(c)
			under = c == '_'
			continue
		}
		if !under && sb.Len() > 0 {
			sb.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimRight(sb.String(), "_")
	if out == "" {
		out = "n"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "n_" + out
	}
	return out
}

// namer hands out identifiers that collide with no reserved word, no
// reserved (port) name and no name handed out before: a taken name gets
// the first free suffix _1, _2, ...
type namer struct {
	taken map[string]bool
}

func newNamer() *namer { return &namer{taken: map[string]bool{}} }

// reserve marks s as taken; it reports false when it already was.
func (n *namer) reserve(s string) bool {
	if n.taken[s] {
		return false
	}
	n.taken[s] = true
	return true
}

// take returns a fresh identifier based on base and marks it taken.
func (n *namer) take(base string) string {
	base = sanitize(base)
	if !n.taken[base] && !verilog.IsReserved(base) {
		n.taken[base] = true
		return base
	}
	for k := 1; ; k++ {
		s := fmt.Sprintf("%s_%d", base, k)
		if !n.taken[s] && !verilog.IsReserved(s) {
			n.taken[s] = true
			return s
		}
	}
}
