package search

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/plot"
)

// Histogram is what one hash does to the accesses of each memory
// instruction, bank by bank.
//
// The conflicts of an access are d − 1, where d, its degree, is the
// largest number of its distinct addresses that fall in one bank: the
// access takes d cycles instead of one. Conflict[i][b] says how many of
// instruction i's conflict cycles bank b causes: extra cycle k of an
// access (k = 2 … d) is shared equally among the banks that receive k or
// more of its distinct addresses, and the shares are summed over the
// instruction's accesses. So a row of Conflict adds up to Conflicts[i]; a
// bank that never receives more than one address of an access has none;
// an access of degree 3 whose banks receive 3, 2 and 1 addresses gives
// the first bank 1/2 + 1 = 1.5 cycles and the second 1/2.
type Histogram struct {
	Title  string
	Banks  int      // 2^m
	Instrs []string // in order of first appearance
	// Load[i][b] is the number of distinct addresses instruction i's
	// accesses send to bank b, summed over its accesses.
	Load [][]int64
	// Conflict[i][b] is the conflict cycles bank b causes in instruction
	// i's accesses, as defined above.
	Conflict [][]float64
	// Conflicts[i] is Σ (degree − 1) over instruction i's accesses.
	Conflicts []int64
	// Accesses[i] is the number of instruction i's accesses.
	Accesses []int64
}

// Total is Σ Conflicts.
func (h *Histogram) Total() int64 {
	var t int64
	for _, c := range h.Conflicts {
		t += c
	}
	return t
}

// BankHistogram maps every access (instr[k] names access k's instruction)
// with cfg and collects, per instruction and bank, the load and the
// conflict cycles, instructions in order of first appearance.
func BankHistogram(title string, accesses [][]uint64, instr []string, n, m int, cfg Config) Histogram {
	cols := cfg.Columns(n, m)
	banks := 1 << uint(m)
	h := Histogram{Title: title, Banks: banks}
	index := map[string]int{}
	cnt := make([]int64, banks)
	var (
		buf     []uint64
		touched []uint64
		atLeast []int64   // atLeast[k]: banks with k or more addresses
		share   []float64 // share[l]: cycles a bank with l addresses causes
	)
	for k, acc := range accesses {
		name := instr[k]
		i, ok := index[name]
		if !ok {
			i = len(h.Instrs)
			index[name] = i
			h.Instrs = append(h.Instrs, name)
			h.Load = append(h.Load, make([]int64, banks))
			h.Conflict = append(h.Conflict, make([]float64, banks))
			h.Conflicts = append(h.Conflicts, 0)
			h.Accesses = append(h.Accesses, 0)
		}
		h.Accesses[i]++
		buf = append(buf[:0], acc...)
		slices.Sort(buf)
		buf = slices.Compact(buf)
		touched = touched[:0]
		var deg int64
		for _, a := range buf {
			b := BankOf(cols, a)
			if cnt[b] == 0 {
				touched = append(touched, b)
			}
			cnt[b]++
			deg = max(deg, cnt[b])
			h.Load[i][b]++
		}
		if deg > 1 {
			h.Conflicts[i] += deg - 1
			atLeast = slices.Grow(atLeast[:0], int(deg)+2)[:deg+2]
			clear(atLeast)
			for _, b := range touched {
				atLeast[cnt[b]]++
			}
			for l := deg - 1; l >= 1; l-- {
				atLeast[l] += atLeast[l+1]
			}
			share = slices.Grow(share[:0], int(deg)+1)[:deg+1]
			share[0], share[1] = 0, 0
			for l := int64(2); l <= deg; l++ {
				share[l] = share[l-1] + 1/float64(atLeast[l])
			}
			for _, b := range touched {
				h.Conflict[i][b] += share[cnt[b]]
			}
		}
		for _, b := range touched {
			cnt[b] = 0
		}
	}
	return h
}

// HeatMapCaption defines the figure's cells; the figure prints it, and
// docs/tools.md quotes it.
const HeatMapCaption = "Cell: the conflict cycles a bank causes, summed over the instruction's accesses. " +
	"An access whose busiest bank receives d of its distinct addresses takes d − 1 extra cycles (its conflicts); " +
	"extra cycle k (k = 2 … d) is shared equally by the banks that receive k or more of them. " +
	"A row adds up to the instruction's conflicts (right). White: none. One colour scale for all panels; " +
	"hover a cell for its numbers."

// Layout of the heat map. Text is monospace and measured as package plot
// measures it (plot.TextWidth; the tests check it with plot/svgcheck).
const (
	hmMargin    = 16.0
	hmFont      = 12.0
	hmSmall     = 10.0
	hmRowH      = 18.0
	hmGap       = 32.0
	hmMinPanel  = 330.0
	hmFontStack = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace"
	hmMaxLabel  = 28 // characters of an instruction name
)

// The colour ramp of positive values, light to dark (0 is white); the
// legend's gradient uses the same stops, so it matches the cells exactly.
var hmRamp = []struct {
	at      float64
	r, g, b int
}{{0, 0xff, 0xed, 0xa0}, {0.35, 0xfe, 0xb2, 0x4c}, {0.7, 0xf0, 0x3b, 0x20}, {1, 0x80, 0x00, 0x26}}

// hmPos is where v falls on a colour scale up to peak, 0 to 1: the
// square root of v/peak, so that a cell of a few conflict cycles stays
// visible beside one of hundreds.
func hmPos(v, peak float64) float64 { return math.Sqrt(min(max(v, 0)/peak, 1)) }

// hmColour is the fill of a cell of value v on a scale up to peak.
func hmColour(v, peak float64) string {
	if v <= 0 {
		return "#ffffff"
	}
	t := hmPos(v, peak)
	for k := 1; k < len(hmRamp); k++ {
		a, b := hmRamp[k-1], hmRamp[k]
		if t <= b.at {
			u := (t - a.at) / (b.at - a.at)
			mix := func(x, y int) int { return int(math.Round(float64(x) + u*float64(y-x))) }
			return fmt.Sprintf("#%02x%02x%02x", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b))
		}
	}
	return "#800026"
}

// panelTitle breaks a panel's title into lines at most w wide, at the
// commas outside brackets where it can ("after: bitwise_xor," / "bits =
// [[0, 5], [1, 6]]"), and appends ": " and the total to the last line, or
// puts the total on a line of its own.
func panelTitle(title, total string, w, size float64) []string {
	var phrases []string
	depth, start := 0, 0
	for i, r := range title {
		switch r {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		case ',':
			if depth == 0 {
				phrases = append(phrases, strings.TrimSpace(title[start:i+1]))
				start = i + 1
			}
		}
	}
	phrases = append(phrases, strings.TrimSpace(title[start:]))
	var lines []string
	for _, ph := range phrases {
		if n := len(lines); n > 0 && plot.TextWidth(lines[n-1]+" "+ph, size) <= w {
			lines[n-1] += " " + ph
			continue
		}
		lines = append(lines, plot.Wrap(ph, w, size)...)
	}
	if n := len(lines); n > 0 && plot.TextWidth(lines[n-1]+": "+total, size) <= w {
		lines[n-1] += ": " + total
	} else {
		if n > 0 {
			lines[n-1] += ":"
		}
		lines = append(lines, total)
	}
	return lines
}

// count prints an integer with thousands separators: 1,234.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// value prints a cell value: integers with separators, else 2 decimals.
func value(v float64) string {
	if r := math.Round(v); math.Abs(v-r) < 1e-9 {
		return count(int64(r))
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// plural is "1 conflict", "1,234 conflicts".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// Comparison says how the conflicts changed from before to after:
// "8.7× fewer", "all removed", "no change", "2.0× more".
func Comparison(before, after int64) string {
	switch {
	case before == after:
		return "no change"
	case after == 0:
		return "all removed"
	case before == 0:
		return "up from none"
	case after < before:
		return times(float64(before)/float64(after)) + " fewer"
	default:
		return times(float64(after)/float64(before)) + " more"
	}
}

func times(r float64) string {
	if r >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64) + "×"
	}
	return strings.TrimSuffix(strconv.FormatFloat(r, 'f', 1, 64), ".0") + "×"
}

// SVG draws the histograms side by side as heat maps of conflict cycles,
// banks across and instructions down, on one colour scale (white: none,
// dark red: the largest cell of any panel), each with its colour-scale
// legend and per-instruction totals; the heading gives every panel's
// total and, for two panels, how they compare. Every cell has a tooltip
// (instruction, bank, conflict cycles, load). The output is deterministic.
func SVG(hs ...Histogram) []byte {
	// Rows: every instruction of any panel, in order of first appearance.
	var instrs []string
	seen := map[string]bool{}
	banks := 1
	peak := 0.0
	var maxTotal int64
	for _, h := range hs {
		banks = max(banks, h.Banks)
		for i, name := range h.Instrs {
			if !seen[name] {
				seen[name] = true
				instrs = append(instrs, name)
			}
			banks = max(banks, len(h.Conflict[i]))
			for _, v := range h.Conflict[i] {
				peak = max(peak, v)
			}
			maxTotal = max(maxTotal, h.Conflicts[i])
		}
		maxTotal = max(maxTotal, h.Total())
	}
	scale := peak
	if scale == 0 {
		scale = 1
	}

	// Geometry.
	labelW := plot.TextWidth("all instructions", hmFont)
	for _, name := range instrs {
		labelW = max(labelW, plot.TextWidth(plot.Fit(name, plot.TextWidth(strings.Repeat("m", hmMaxLabel), hmFont), hmFont), hmFont))
	}
	labelW += 12
	cellW := min(28, max(1, math.Floor(384/float64(banks)*4)/4))
	gridW := cellW * float64(banks)
	totalsW := max(plot.TextWidth("conflicts", hmFont), plot.TextWidth(count(maxTotal), hmFont)) + 12
	panelW := max(gridW+totalsW, hmMinPanel)
	n := max(len(hs), 1)
	width := math.Ceil(hmMargin*2 + labelW + float64(n)*panelW + float64(n-1)*hmGap)
	gridX := func(p int) float64 { return hmMargin + labelW + float64(p)*(panelW+hmGap) }

	var b strings.Builder
	text := func(x, y float64, anchor, class, s string, attrs ...string) {
		extra := ""
		if len(attrs) > 0 {
			extra = " " + strings.Join(attrs, " ")
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="%s" class="%s"%s>%s</text>`+"\n", f2(x), f2(y), anchor, class, extra, html.EscapeString(s))
	}

	// Heading: what is drawn, the totals, the definition.
	y := hmMargin
	for _, l := range plot.Wrap("Bank conflicts per instruction and bank", width-2*hmMargin, 15) {
		y += 20
		text(hmMargin, y, "start", "title", l, `font-size="15" font-weight="bold"`)
	}
	var parts []string
	for _, h := range hs {
		name, _, _ := strings.Cut(h.Title, ":")
		parts = append(parts, name+": "+plural(h.Total(), "conflict", "conflicts"))
	}
	summary := strings.Join(parts, " / ")
	if len(hs) == 2 {
		summary += " (" + Comparison(hs[0].Total(), hs[1].Total()) + ")"
	}
	for _, l := range plot.Wrap(summary, width-2*hmMargin, 13) {
		y += 18
		text(hmMargin, y, "start", "summary", l, `font-size="13" font-weight="bold"`)
	}
	y += 2
	for _, l := range plot.Wrap(HeatMapCaption, width-2*hmMargin, hmFont) {
		y += 16
		text(hmMargin, y, "start", "caption", l, `fill="#444"`)
	}
	y += 14

	// Panel titles, the panels' grids starting level below the longest.
	titles := make([][]string, len(hs))
	lines := 0
	for p, h := range hs {
		titles[p] = panelTitle(h.Title, plural(h.Total(), "conflict", "conflicts"), panelW, hmFont)
		lines = max(lines, len(titles[p]))
	}
	for p := range hs {
		for k, l := range titles[p] {
			text(gridX(p), y+16*float64(k+1), "start", "panel-title", l, `font-weight="bold"`)
		}
	}
	y += 16*float64(lines) + 22 // the column headers
	text(hmMargin, y-6, "start", "column-header", "instruction", `fill="#555"`)
	for p := range hs {
		text(gridX(p)+gridW+totalsW, y-6, "end", "column-header", "conflicts", `fill="#555"`)
	}
	top := y

	// Rows.
	for r, name := range instrs {
		ry := top + hmRowH*float64(r)
		text(hmMargin, ry+13, "start", "instr-label", plot.Fit(name, labelW-12, hmFont))
		for p, h := range hs {
			i := slices.Index(h.Instrs, name)
			gx := gridX(p)
			for bank := 0; bank < banks; bank++ {
				var v float64
				var load int64
				if i >= 0 && bank < len(h.Conflict[i]) {
					v, load = h.Conflict[i][bank], h.Load[i][bank]
				}
				tip := fmt.Sprintf("%s, bank %d: %s conflict cycles; load %s", name, bank, value(v), plural(load, "address", "addresses"))
				if i >= 0 {
					tip += " in " + plural(h.Accesses[i], "access", "accesses")
				}
				fmt.Fprintf(&b, `<rect class="cell" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="#ddd" stroke-width="0.5" data-panel="%d" data-instr="%s" data-bank="%d" data-conflicts="%s" data-load="%d"><title>%s</title></rect>`+"\n",
					f2(gx+float64(bank)*cellW), f2(ry), f2(cellW), f2(hmRowH), hmColour(v, scale), p, html.EscapeString(name), bank,
					strconv.FormatFloat(v, 'g', -1, 64), load, html.EscapeString(tip))
			}
			var c int64
			if i >= 0 {
				c = h.Conflicts[i]
			}
			text(gx+gridW+totalsW, ry+13, "end", "row-total", count(c))
		}
	}
	y = top + hmRowH*float64(len(instrs))
	// Totals row.
	for p, h := range hs {
		gx := gridX(p)
		fmt.Fprintf(&b, `<line class="rule" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999"/>`+"\n", f2(gx+gridW+8), f2(y+2), f2(gx+gridW+totalsW), f2(y+2))
		text(gx+gridW+totalsW, y+16, "end", "panel-total", count(h.Total()), `font-weight="bold"`)
	}
	text(hmMargin, y+16, "start", "instr-label", "all instructions", `font-weight="bold"`)

	// Bank numbers under each grid: every step-th bank, step a power of
	// two wide enough for the labels, and the last bank where it fits.
	wide := plot.TextWidth(strconv.Itoa(banks-1), hmSmall) + 6
	step := 1
	for float64(step)*cellW < wide || step < banks/8 {
		step *= 2
	}
	by := y + 4 + hmSmall
	for p := range hs {
		gx := gridX(p)
		last := math.Inf(-1)
		for bank := 0; bank < banks; bank += step {
			x := gx + (float64(bank)+0.5)*cellW
			text(x, by, "middle", "bank-label", strconv.Itoa(bank), fmt.Sprintf(`font-size="%g" fill="#555"`, hmSmall))
			last = x + plot.TextWidth(strconv.Itoa(bank), hmSmall)/2
		}
		if (banks-1)%step != 0 {
			x := gx + (float64(banks)-0.5)*cellW
			if w := plot.TextWidth(strconv.Itoa(banks-1), hmSmall); x-w/2 > last+6 {
				text(x, by, "middle", "bank-label", strconv.Itoa(banks-1), fmt.Sprintf(`font-size="%g" fill="#555"`, hmSmall))
			}
		}
		text(gx+gridW/2, by+14, "middle", "axis-label", "bank", `fill="#555"`)
	}
	y = by + 14

	// A colour-scale legend under every panel: white is 0, the gradient
	// runs from just above 0 to the peak.
	fmt.Fprintf(&b, `<defs><linearGradient id="conflict-scale" x1="0" y1="0" x2="1" y2="0">`)
	for _, s := range hmRamp {
		fmt.Fprintf(&b, `<stop offset="%s" stop-color="#%02x%02x%02x"/>`, f2(s.at), s.r, s.g, s.b)
	}
	b.WriteString("</linearGradient></defs>\n")
	ly := y + 26
	for p := range hs {
		gx := gridX(p)
		text(gx, ly-6, "start", "legend-title", "conflict cycles per cell (square-root scale)", fmt.Sprintf(`font-size="%g" fill="#555"`, hmSmall+1))
		fmt.Fprintf(&b, `<rect class="legend-zero" x="%s" y="%s" width="12" height="12" fill="#ffffff" stroke="#999" stroke-width="0.5"/>`+"\n", f2(gx), f2(ly))
		text(gx+6, ly+24, "middle", "legend-tick", "0", fmt.Sprintf(`font-size="%g"`, hmSmall))
		barX := gx + 24
		barW := min(260, panelW-24-plot.TextWidth(value(peak), hmSmall))
		fmt.Fprintf(&b, `<rect class="colour-scale" x="%s" y="%s" width="%s" height="12" fill="url(#conflict-scale)" stroke="#999" stroke-width="0.5" data-max="%s"><title>colour scale: 0 (white) to %s conflict cycles</title></rect>`+"\n",
			f2(barX), f2(ly), f2(barW), strconv.FormatFloat(scale, 'g', -1, 64), value(scale))
		// Ticks at 1, 2, 5 times powers of ten up to the peak, and the
		// peak itself, kept from the peak down where they do not touch.
		var ticks []float64
		for e := math.Floor(math.Log10(scale)) - 2; e <= math.Floor(math.Log10(scale)); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); v >= min(1, scale/20) && v < scale*(1-1e-9) {
					ticks = append(ticks, v)
				}
			}
		}
		ticks = append(ticks, scale)
		right := math.Inf(1)
		var keep []float64
		for k := len(ticks) - 1; k >= 0; k-- {
			x := barX + hmPos(ticks[k], scale)*barW
			w := plot.TextWidth(value(ticks[k]), hmSmall)
			if x+w/2 < right-8 && x-w/2 > gx+12+8 {
				keep = append(keep, ticks[k])
				right = x - w/2
			}
		}
		slices.Reverse(keep)
		for _, v := range keep {
			x := barX + hmPos(v, scale)*barW
			fmt.Fprintf(&b, `<line class="legend-tick-mark" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555"/>`+"\n", f2(x), f2(ly+12), f2(x), f2(ly+15))
			text(x, ly+24, "middle", "legend-tick", value(v), fmt.Sprintf(`font-size="%g"`, hmSmall))
		}
	}
	height := math.Ceil(ly + 24 + hmMargin)

	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="%g">`+"\n",
		f2(width), f2(height), f2(width), f2(height), hmFontStack, hmFont)
	fmt.Fprintf(&out, `<rect class="background" width="%s" height="%s" fill="white"/>`+"\n", f2(width), f2(height))
	out.WriteString(b.String())
	out.WriteString("</svg>\n")
	return []byte(out.String())
}

// f2 prints a coordinate with at most 2 decimals.
func f2(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
