package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/specs"
)

// A configurable hash unit's configuration is a set of registers, one per
// cfg_* input of its model (ForHash): cfg_k1_i is register k1. A register
// holds Fields fields of FieldBits bits, field 0 in the low bits (k1: one
// field; sel: one field per bank bit; perm: one per RAP row). Users write a
// configuration as key=value pairs, k1=0,k2=5,mask=31, a register of several
// fields as a list, sel=[3,4,5,6,7] (field 0 first).

// HashRegister is one configuration register of a configurable hash unit.
type HashRegister struct {
	Key       string // k1, mask, sel_a, perm: the port name without cfg_ and _i
	Port      string // cfg_k1_i
	Fields    int
	FieldBits int
}

// Max is the largest value one field holds.
func (r HashRegister) Max() uint64 { return lowMask(r.FieldBits) }

// HashConfig is a configuration of a configurable hash unit: per register,
// in the model's port order, its field values.
type HashConfig struct {
	Regs   []HashRegister
	Values [][]uint64
}

// HashRegisters is the configuration registers of configurable hash unit h,
// in the order of its model's cfg_* ports.
func HashRegisters(h *specs.Hash) ([]HashRegister, error) {
	if h == nil {
		return nil, errors.New("model: nil hash unit")
	}
	if !h.Configurable {
		return nil, fmt.Errorf("hash %q is not configurable: it has no configuration registers", h.Name)
	}
	m, err := ForHash(h)
	if err != nil {
		return nil, err
	}
	var regs []HashRegister
	for _, p := range m.Ports() {
		if p.Output || !strings.HasPrefix(p.Name, "cfg_") {
			continue
		}
		key := strings.TrimSuffix(strings.TrimPrefix(p.Name, "cfg_"), "_i")
		fields, bits := 1, p.Width
		switch {
		case h.Function == specs.RAP:
			l, _ := log2Exact(h.W)
			fields, bits = h.W, l
		case key == "sel" || key == "sel_a" || key == "sel_b":
			fields, bits = h.BankBits, p.Width/h.BankBits
		}
		regs = append(regs, HashRegister{Key: key, Port: p.Name, Fields: fields, FieldBits: bits})
	}
	return regs, nil
}

// ParseHashConfig reads a configuration of h written k1=0,k2=5,mask=31
// (a register of several fields as a list, sel=[3,4,5]). Every register must be given once; an unknown key, a
// missing one or a value out of its field's range is an error that names
// the key and the range.
func ParseHashConfig(h *specs.Hash, text string) (*HashConfig, error) {
	regs, err := HashRegisters(h)
	if err != nil {
		return nil, err
	}
	c := &HashConfig{Regs: regs, Values: make([][]uint64, len(regs))}
	keys := make([]string, len(regs))
	for i, r := range regs {
		keys[i] = r.Key
	}
	for _, item := range splitTop(text) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || key == "" {
			return nil, fmt.Errorf("%q: want KEY=VALUE (keys of hash %q: %s)", item, h.Name, strings.Join(keys, ", "))
		}
		i := indexOf(keys, key)
		if i < 0 {
			hint := ""
			if best := specs.Closest(key, keys); best != "" {
				hint = fmt.Sprintf(" Did you mean %q?", best)
			}
			return nil, fmt.Errorf("unknown key %q: hash %q (%s) has the registers %s.%s", key, h.Name, h.Function, strings.Join(keys, ", "), hint)
		}
		if c.Values[i] != nil {
			return nil, fmt.Errorf("key %s given twice", key)
		}
		if c.Values[i], err = parseRegister(regs[i], val); err != nil {
			return nil, err
		}
	}
	var missing []string
	for i, v := range c.Values {
		if v == nil {
			missing = append(missing, regs[i].Key+" ("+regs[i].rangeText()+")")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("hash %q needs every register: missing %s", h.Name, strings.Join(missing, ", "))
	}
	return c, nil
}

// parseRegister reads one register's value: a number, or a list of one
// number per field.
func parseRegister(r HashRegister, val string) ([]uint64, error) {
	var parts []string
	list := strings.HasPrefix(val, "[")
	if list {
		if !strings.HasSuffix(val, "]") {
			return nil, fmt.Errorf("%s=%s: a list ends with ]", r.Key, val)
		}
		parts = strings.Split(val[1:len(val)-1], ",")
		if len(parts) != r.Fields {
			return nil, fmt.Errorf("%s: %d values, want %d (one per field, field 0 first), each %s", r.Key, len(parts), r.Fields, r.rangeText())
		}
	} else {
		if r.Fields > 1 {
			return nil, fmt.Errorf("%s=%s: %s has %d fields: write them as a list %s=[v0,...,v%d], each %s", r.Key, val, r.Key, r.Fields, r.Key, r.Fields-1, r.rangeText())
		}
		parts = []string{val}
	}
	out := make([]uint64, r.Fields)
	for i, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseUint(p, 0, 64)
		if err != nil || v > r.Max() {
			return nil, fmt.Errorf("%s=%s: want %s", r.Key, p, r.rangeText())
		}
		out[i] = v
	}
	return out, nil
}

// rangeText is "0..31", a field's range.
func (r HashRegister) rangeText() string { return fmt.Sprintf("0..%d", r.Max()) }

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// String is the configuration as ParseHashConfig reads it, registers in
// port order.
func (c *HashConfig) String() string {
	parts := make([]string, len(c.Regs))
	for i, r := range c.Regs {
		v := c.Values[i]
		if r.Fields == 1 {
			parts[i] = fmt.Sprintf("%s=%d", r.Key, v[0])
			continue
		}
		fs := make([]string, len(v))
		for j, x := range v {
			fs[j] = strconv.FormatUint(x, 10)
		}
		parts[i] = r.Key + "=[" + strings.Join(fs, ",") + "]"
	}
	return strings.Join(parts, ",")
}

// Port is register i's port value: its fields packed, field 0 in the low
// bits, as little-endian words (a model input).
func (c *HashConfig) Port(i int) []uint64 {
	r := c.Regs[i]
	v := make([]uint64, words(r.Fields*r.FieldBits))
	for f, x := range c.Values[i] {
		for k := range r.FieldBits {
			if x>>k&1 == 1 {
				bit := f*r.FieldBits + k
				v[bit/64] |= 1 << (bit % 64)
			}
		}
	}
	return v
}

// PortLiteral is register i's port value as a Verilog literal, 20'h1a2b3.
func (c *HashConfig) PortLiteral(i int) string {
	r := c.Regs[i]
	width := r.Fields * r.FieldBits
	v := c.Port(i)
	var b strings.Builder
	for k := (width+3)/4 - 1; k >= 0; k-- {
		nib := v[(4*k)/64] >> ((4 * k) % 64) & 0xf
		b.WriteByte("0123456789abcdef"[nib])
	}
	return fmt.Sprintf("%d'h%s", width, b.String())
}
