package search

import (
	"fmt"
	"html"
	"slices"
	"strings"
)

// Histogram is the bank load of each memory instruction under one hash:
// Load[i][b] is the number of distinct addresses that instruction i's
// accesses send to bank b, summed over its accesses; Conflicts[i] is
// Σ (degree − 1) over them.
type Histogram struct {
	Title     string
	Instrs    []string
	Load      [][]int64
	Conflicts []int64
}

// BankHistogram maps every access (instr[k] names access k's instruction)
// with cfg and collects the per-instruction bank loads, instructions in
// order of first appearance.
func BankHistogram(title string, accesses [][]uint64, instr []string, n, m int, cfg Config) Histogram {
	cols := cfg.Columns(n, m)
	h := Histogram{Title: title}
	index := map[string]int{}
	cnt := make([]int64, 1<<uint(m))
	var buf []uint64
	for k, acc := range accesses {
		name := instr[k]
		i, ok := index[name]
		if !ok {
			i = len(h.Instrs)
			index[name] = i
			h.Instrs = append(h.Instrs, name)
			h.Load = append(h.Load, make([]int64, 1<<uint(m)))
			h.Conflicts = append(h.Conflicts, 0)
		}
		buf = append(buf[:0], acc...)
		slices.Sort(buf)
		buf = slices.Compact(buf)
		var deg int64
		for _, a := range buf {
			b := BankOf(cols, a)
			cnt[b]++
			deg = max(deg, cnt[b])
			h.Load[i][b]++
		}
		for _, a := range buf {
			cnt[BankOf(cols, a)] = 0
		}
		if deg > 0 {
			h.Conflicts[i] += deg - 1
		}
	}
	return h
}

// SVG draws the histograms one under the other, banks across, instructions
// down, on one colour scale (white: no access, dark red: the busiest cell
// of either panel), so moving from one panel to the next shows where the
// load went. The output is deterministic.
func SVG(hs ...Histogram) []byte {
	const (
		labelW = 180.0
		gridW  = 512.0
		rowH   = 18.0
		titleH = 28.0
		gap    = 16.0
		margin = 10.0
		numW   = 110.0
	)
	var peak int64 = 1
	banks := 1
	for _, h := range hs {
		for _, row := range h.Load {
			banks = len(row)
			for _, v := range row {
				peak = max(peak, v)
			}
		}
	}
	cellW := gridW / float64(banks)
	height := margin
	for _, h := range hs {
		height += titleH + rowH*float64(len(h.Instrs)) + rowH + gap
	}
	width := margin*2 + labelW + gridW + numW
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="monospace" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", width, height)
	y := margin
	for _, h := range hs {
		var total int64
		for _, c := range h.Conflicts {
			total += c
		}
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="13" font-weight="bold">%s: %d conflicts</text>`+"\n", margin, y+18, html.EscapeString(h.Title), total)
		y += titleH
		for i, name := range h.Instrs {
			fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", margin, y+13, html.EscapeString(trimLabel(name)))
			for bank, v := range h.Load[i] {
				t := float64(v) / float64(peak)
				g := int(255 - 215*t)
				fmt.Fprintf(&b, `<rect x="%.2f" y="%g" width="%.2f" height="%g" fill="rgb(%d,%d,%d)" stroke="#ddd" stroke-width="0.5"><title>%s, bank %d: %d addresses</title></rect>`+"\n",
					margin+labelW+float64(bank)*cellW, y, cellW, rowH, min(255, g+40), g, g, html.EscapeString(name), bank, v)
			}
			fmt.Fprintf(&b, `<text x="%g" y="%g">%d conflicts</text>`+"\n", margin+labelW+gridW+8, y+13, h.Conflicts[i])
			y += rowH
		}
		fmt.Fprintf(&b, `<text x="%g" y="%g" fill="#555">bank 0</text>`+"\n", margin+labelW, y+13)
		fmt.Fprintf(&b, `<text x="%g" y="%g" fill="#555" text-anchor="end">bank %d</text>`+"\n", margin+labelW+gridW, y+13, banks-1)
		y += rowH + gap
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func trimLabel(s string) string {
	if r := []rune(s); len(r) > 24 {
		return string(r[:23]) + "…"
	}
	return s
}
