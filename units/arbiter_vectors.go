package units

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// Bank arbiter: the warps that matter, as directed vectors for the
// combinational unit and as the offers of the serializing unit's stimulus.
//
// Random addresses almost never share a bank with more than a lane or two
// and almost never repeat, so the corners are built here: no active lane,
// one (first, middle, last), all lanes on one address, all lanes in one
// bank on distinct addresses (found by evaluating the bank mapping, hash
// and configuration included), alternating masks, strided warps (stride 1,
// 2, the number of banks), 002's Eq. 1 access patterns, distinct addresses
// on one lock, and random warps over a few distinct addresses with random
// masks; each set of corners with its own configuration values.

// Corner names, for coverage and tests.
const (
	arbCornerEmpty     = "no active lane"
	arbCornerFirst     = "lane 0 alone"
	arbCornerMiddle    = "a middle lane alone"
	arbCornerLast      = "the last lane alone"
	arbCornerOneAddr   = "one address"
	arbCornerOneBank   = "one bank, distinct addresses"
	arbCornerBankReuse = "one bank, a few addresses"
	arbCornerAlt01     = "mask 0101"
	arbCornerAlt10     = "mask 1010"
	arbCornerStride1   = "stride 1"
	arbCornerStride2   = "stride 2"
	arbCornerStrideB   = "stride = banks"
	arbCornerEq1       = "002 Eq. 1"
	arbCornerOneLock   = "one lock, distinct addresses"
	arbCornerRandom    = "few addresses, random mask"
)

// arbWarp is one warp offered to an arbiter: its lane addresses, active
// mask and configuration values (one per configuration input, in the
// model's order), and the corner it stands for.
type arbWarp struct {
	corner string
	addrs  []uint64
	active uint64
	cfg    [][]uint64
}

// arbGen draws an arbiter's corner warps. It reads banks and locks from
// the combinational model of the unit (serialize off), which maps
// addresses as the serializing unit does.
type arbGen struct {
	r                      *rand.Rand
	lanes, addrBits, bankB int
	lockB                  int // 0 without a lock hash
	addrMask, laneMask     uint64
	m                      model.Model
	in, out                [][]uint64
	addrIn, activeIn       int
	bankOut, lockOut       int          // lockOut -1 without a lock hash
	cfg                    []model.Port // configuration inputs
	cfgIn                  []int        // their indices among the model's inputs
}

func newArbGen(a *specs.BankArbiter, r *rand.Rand) (*arbGen, error) {
	c := *a
	c.Serialize = false
	m, err := model.ForBankArbiter(&c)
	if err != nil {
		return nil, err
	}
	g := &arbGen{r: r, lanes: a.Lanes, addrBits: a.AddrBits, bankB: a.BankBits, lockB: a.LockBits(),
		addrMask: verify.Mask(a.AddrBits), laneMask: verify.Mask(a.Lanes), m: m, lockOut: -1}
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			switch p.Name {
			case "bank_o":
				g.bankOut = len(g.out)
			case "lock_o":
				g.lockOut = len(g.out)
			}
			g.out = append(g.out, v)
			continue
		}
		switch p.Name {
		case "addr_i":
			g.addrIn = len(g.in)
		case "active_i":
			g.activeIn = len(g.in)
		default:
			g.cfg = append(g.cfg, p)
			g.cfgIn = append(g.cfgIn, len(g.in))
		}
		g.in = append(g.in, v)
	}
	return g, nil
}

// randomCfg draws configuration values: random bits, or all zeros or all
// ones now and then.
func (g *arbGen) randomCfg() [][]uint64 {
	mode := g.r.IntN(8)
	cfg := make([][]uint64, len(g.cfg))
	for k, p := range g.cfg {
		v := make([]uint64, (p.Width+63)/64)
		for w := range v {
			switch mode {
			case 0:
			case 1:
				v[w] = ^uint64(0)
			default:
				v[w] = g.r.Uint64()
			}
			if n := p.Width - 64*w; n < 64 {
				v[w] &= verify.Mask(n)
			}
		}
		cfg[k] = v
	}
	return cfg
}

// arbPutLanes packs one n-bit value per lane into v.
func arbPutLanes(v []uint64, vals []uint64, n int) {
	clear(v)
	for k, x := range vals {
		x &= verify.Mask(n)
		lo := k * n
		w, s := lo/64, lo%64
		v[w] |= x << uint(s)
		if s+n > 64 {
			v[w+1] |= x >> uint(64-s)
		}
	}
}

// arbGetLanes unpacks one n-bit value per lane from v.
func arbGetLanes(v []uint64, lanes, n int) []uint64 {
	vals := make([]uint64, lanes)
	for k := range vals {
		lo := k * n
		w, s := lo/64, lo%64
		x := v[w] >> uint(s)
		if s+n > 64 {
			x |= v[w+1] << uint(64-s)
		}
		vals[k] = x & verify.Mask(n)
	}
	return vals
}

// keys returns the bank (or, with lock, the lock index) of every address
// under the configuration cfg, a warp of lanes at a time.
func (g *arbGen) keys(addrs []uint64, cfg [][]uint64, lock bool) []uint64 {
	out, n := g.bankOut, g.bankB
	if lock {
		out, n = g.lockOut, g.lockB
	}
	for k, v := range cfg {
		copy(g.in[g.cfgIn[k]], v)
	}
	keys := make([]uint64, 0, len(addrs))
	warp := make([]uint64, g.lanes)
	for lo := 0; lo < len(addrs); lo += g.lanes {
		clear(warp)
		copy(warp, addrs[lo:])
		arbPutLanes(g.in[g.addrIn], warp, g.addrBits)
		g.m.Eval(g.in, g.out)
		ks := arbGetLanes(g.out[out], g.lanes, n)
		keys = append(keys, ks[:min(g.lanes, len(addrs)-lo)]...)
	}
	return keys
}

// sameKey returns up to n distinct addresses, base first, in base's bank
// (or lock). It tries, in turn: base XOR the combinations of address bits
// that do not change the key when flipped together from base (the kernel
// of an XOR hash, exact for the linear ones), every address when there are
// at most 2^16, and random addresses.
func (g *arbGen) sameKey(base uint64, cfg [][]uint64, n int, lock bool) []uint64 {
	base &= g.addrMask
	target := g.keys([]uint64{base}, cfg, lock)[0]
	found := []uint64{base}
	seen := map[uint64]bool{base: true}
	try := func(cands []uint64) {
		for i, k := range g.keys(cands, cfg, lock) {
			if c := cands[i] & g.addrMask; k == target && !seen[c] && len(found) < n {
				seen[c] = true
				found = append(found, c)
			}
		}
	}
	// The kernel of the flips: Gaussian elimination over GF(2) of each
	// single-bit flip's key change, remembering which flips make up each
	// basis row.
	flips := make([]uint64, g.addrBits)
	for j := range flips {
		flips[j] = base ^ 1<<uint(j)
	}
	type row struct{ v, combo uint64 }
	var basis []row
	var kernel []uint64
	for j, k := range g.keys(flips, cfg, lock) {
		r := row{k ^ target, 1 << uint(j)}
		for _, b := range basis {
			if r.v&(1<<uint(63-bits.LeadingZeros64(b.v))) != 0 {
				r.v, r.combo = r.v^b.v, r.combo^b.combo
			}
		}
		if r.v == 0 {
			kernel = append(kernel, r.combo)
		} else {
			basis = append(basis, r)
		}
	}
	var cands []uint64
	for i := uint64(1); i < 1<<uint(min(len(kernel), 16)) && len(cands) < 4*n; i++ {
		x := base
		for b, kv := range kernel {
			if i>>uint(b)&1 == 1 {
				x ^= kv
			}
		}
		cands = append(cands, x)
	}
	try(cands)
	if len(found) < n && g.addrBits <= 16 {
		all := make([]uint64, 1<<uint(g.addrBits))
		for x := range all {
			all[x] = base ^ uint64(x)
		}
		try(all)
	}
	for tries := 0; len(found) < n && tries < 32; tries++ {
		cands := make([]uint64, 4*g.lanes)
		for i := range cands {
			cands[i] = g.r.Uint64()
		}
		try(cands)
	}
	return found
}

// fill spreads vals over the lanes, cyclically.
func (g *arbGen) fill(vals []uint64) []uint64 {
	w := make([]uint64, g.lanes)
	for k := range w {
		w[k] = vals[k%len(vals)] & g.addrMask
	}
	return w
}

// stride is base + k*step for lane k (mod 2^addr_bits).
func (g *arbGen) stride(base, step uint64) []uint64 {
	w := make([]uint64, g.lanes)
	for k := range w {
		w[k] = (base + uint64(k)*step) & g.addrMask
	}
	return w
}

// randomAddrs are distinct random addresses where the address bits allow.
func (g *arbGen) randomAddrs() []uint64 {
	w := make([]uint64, g.lanes)
	for k := range w {
		w[k] = g.r.Uint64() & g.addrMask
	}
	return w
}

// altMask is the lanes whose number has parity odd (0101: lanes 0, 2, ...
// when odd is false).
func (g *arbGen) altMask(odd bool) uint64 {
	m := uint64(0x5555555555555555)
	if odd {
		m <<= 1
	}
	return m & g.laneMask
}

// corners returns one warp of every corner, and random warps over a few
// addresses, all with the configuration cfg.
func (g *arbGen) corners(cfg [][]uint64) []arbWarp {
	L := g.lanes
	full := g.laneMask
	var ws []arbWarp
	add := func(corner string, addrs []uint64, active uint64) {
		ws = append(ws, arbWarp{corner: corner, addrs: addrs, active: active & full, cfg: cfg})
	}
	base := g.r.Uint64() & g.addrMask
	oneBank := g.sameKey(base, cfg, L, false)
	banks := uint64(1) << uint(g.bankB)

	add(arbCornerEmpty, g.randomAddrs(), 0)
	add(arbCornerEmpty, g.fill(oneBank), 0)
	add(arbCornerFirst, g.fill(oneBank), 1)
	add(arbCornerMiddle, g.fill(oneBank), 1<<uint(L/2))
	add(arbCornerLast, g.fill(oneBank), 1<<uint(L-1))
	add(arbCornerOneAddr, g.fill([]uint64{base}), full)
	add(arbCornerOneAddr, g.fill([]uint64{0}), full)
	add(arbCornerOneAddr, g.fill([]uint64{g.addrMask}), full)
	add(arbCornerOneBank, g.fill(oneBank), full)
	add(arbCornerOneBank, g.fill(oneBank), full&^1) // without lane 0
	add(arbCornerBankReuse, g.fill(oneBank[:min(3, len(oneBank))]), full)
	add(arbCornerAlt01, g.fill(oneBank), g.altMask(false))
	add(arbCornerAlt10, g.fill(oneBank), g.altMask(true))
	add(arbCornerAlt01, g.stride(base, 1), g.altMask(false))
	add(arbCornerAlt10, g.fill([]uint64{base}), g.altMask(true))
	add(arbCornerStride1, g.stride(base, 1), full)
	add(arbCornerStride1, g.stride(0, 1), full)
	add(arbCornerStride2, g.stride(base, 2), full)
	add(arbCornerStrideB, g.stride(base, banks), full)
	add(arbCornerStrideB, g.stride(0, banks), g.altMask(g.r.IntN(2) == 0))
	add(arbCornerStrideB, g.stride(base, banks+1), full)
	// 002 Eq. 1: lane k updates k*stride when k < conflicts, else k.
	for _, step := range []uint64{0, banks, 8 * banks} {
		c := 2 + g.r.IntN(L-1)
		w := g.stride(0, 1)
		for k := range c {
			w[k] = (uint64(k) * step) & g.addrMask
		}
		add(arbCornerEq1, w, full)
	}
	if g.lockOut >= 0 {
		add(arbCornerOneLock, g.fill(g.sameKey(base, cfg, L, true)), full)
	}
	// Random warps over a few addresses (some of one bank), random masks.
	for k := 0; k < 12; k++ {
		pool := make([]uint64, 1+g.r.IntN(4))
		for i := range pool {
			switch g.r.IntN(3) {
			case 0:
				pool[i] = oneBank[g.r.IntN(len(oneBank))]
			case 1:
				pool[i] = g.r.Uint64N(16) & g.addrMask
			default:
				pool[i] = g.r.Uint64() & g.addrMask
			}
		}
		w := make([]uint64, L)
		for i := range w {
			w[i] = pool[g.r.IntN(len(pool))]
		}
		m := g.r.Uint64()
		if k%3 == 0 {
			m &= g.r.Uint64()
		}
		add(arbCornerRandom, w, m)
	}
	return ws
}

// rounds is how many sets of corners to draw: one per configuration, three
// configurations for a configurable unit.
func (g *arbGen) rounds() int {
	if len(g.cfg) > 0 {
		return 3
	}
	return 1
}

// arbiterVectors gives a combinational bank arbiter's directed vectors:
// every corner, with random configuration values (three sets of them when
// a hash is configurable). It gives none when the design's inputs are not
// the arbiter's (by name and width).
func arbiterVectors(a *specs.BankArbiter) verify.DirectedFunc {
	return func(ins []*netlist.Port, seed uint64) []verify.Vector {
		g, err := newArbGen(a, rand.New(rand.NewPCG(seed, 0x6172626974657273)))
		if err != nil {
			return nil
		}
		// Where each design input finds its value: -1 addr_i, -2
		// active_i, else a configuration input.
		src := make([]int, len(ins))
		for i, p := range ins {
			src[i] = -3
			switch {
			case p.Name == "addr_i" && p.Width() == a.Lanes*a.AddrBits:
				src[i] = -1
			case p.Name == "active_i" && p.Width() == a.Lanes:
				src[i] = -2
			default:
				for k, c := range g.cfg {
					if c.Name == p.Name && c.Width == p.Width() {
						src[i] = k
					}
				}
			}
			if src[i] == -3 {
				return nil
			}
		}
		var vs []verify.Vector
		for range g.rounds() {
			cfg := g.randomCfg()
			for _, w := range g.corners(cfg) {
				v := make(verify.Vector, len(ins))
				for i, p := range ins {
					v[i] = make([]uint64, (p.Width()+63)/64)
					switch k := src[i]; k {
					case -1:
						arbPutLanes(v[i], w.addrs, a.AddrBits)
					case -2:
						v[i][0] = w.active
					default:
						copy(v[i], w.cfg[k])
					}
				}
				vs = append(vs, v)
			}
		}
		return vs
	}
}

// ---------------------------------------------------------------------------
// The serializing arbiter's stimulus.

const (
	arbPhaseMixed = iota
	arbPhaseBackToBack
	arbPhaseBubbles
	arbPhaseIdle
)

var arbPhaseNames = [...]string{"mixed", "back to back", "bubbles", "idle"}

// arbPValid is the chance of a new offer in a cycle of each phase.
var arbPValid = [...]float64{arbPhaseMixed: 0.6, arbPhaseBackToBack: 1, arbPhaseBubbles: 0.2, arbPhaseIdle: 0}

type arbStim struct {
	g                                    *arbGen
	r                                    *rand.Rand
	rst, valid, addr, active             int   // inputs
	cfgIn                                []int // configuration inputs, in g.cfg's order
	ready, grantValid, grantO, last, deg int   // outputs
	ph                                   *verify.Phaser
	queue                                []arbWarp
	offered                              arbWarp
	pending                              bool       // offered and not accepted: offer it again
	cfgNow                               [][]uint64 // the configuration applied while not offering
	rstLeft                              int
	busy                                 bool // the arbiter holds a warp in this cycle

	accepted, backToBack, stalled, bubbles int
	grantCycles, emptyWarps, resets        int
	midResets, acceptResets, maxDegree     int
	corners                                map[string]int
}

// arbiterStimulus drives a serializing bank arbiter: the corner warps of
// arbiterVectors, each with its configuration, offered in phases (mixed,
// back to back, with bubbles, idle). An offer is held on valid_i until it
// is accepted; configuration inputs change between offers, also while a
// warp is being granted; rare resets, some in the middle of a grant
// sequence.
func arbiterStimulus(a *specs.BankArbiter) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		r := verify.StimulusRand(seed)
		g, err := newArbGen(a, r)
		if err != nil {
			return nil, err
		}
		pm := verify.NewPortMap(ports)
		D := bits.Len(uint(a.Lanes))
		s := &arbStim{
			g: g, r: r,
			rst:        pm.In(verify.ResetPort, 1),
			valid:      pm.In("valid_i", 1),
			addr:       pm.In("addr_i", a.Lanes*a.AddrBits),
			active:     pm.In("active_i", a.Lanes),
			ready:      pm.Out("ready_o", 1),
			grantValid: pm.Out("grant_valid_o", 1),
			grantO:     pm.Out("grant_o", a.Lanes),
			last:       pm.Out("last_o", 1),
			deg:        pm.Out("degree_o", D),
			ph:         verify.NewPhaser(r, []int{3, 2, 2, 1}),
			corners:    map[string]int{},
		}
		for _, c := range g.cfg {
			s.cfgIn = append(s.cfgIn, pm.In(c.Name, c.Width))
		}
		if pm.Err() != nil {
			return nil, pm.Err()
		}
		nIn := 0
		for _, p := range ports {
			if !p.Output {
				nIn++
			}
		}
		if n := nIn; n != 4+len(g.cfg) {
			return nil, fmt.Errorf("stimulus: %s: %d inputs, want %d", a.Name, n, 4+len(g.cfg))
		}
		s.cfgNow = g.randomCfg()
		return s, nil
	}
}

// next is the next warp to offer: the corners of a fresh configuration, in
// random order.
func (s *arbStim) next() arbWarp {
	if len(s.queue) == 0 {
		s.queue = s.g.corners(s.g.randomCfg())
		s.r.Shuffle(len(s.queue), func(i, j int) { s.queue[i], s.queue[j] = s.queue[j], s.queue[i] })
	}
	w := s.queue[0]
	s.queue = s.queue[1:]
	return w
}

func (s *arbStim) putCfg(in [][]uint64, cfg [][]uint64) {
	for k, v := range cfg {
		copy(in[s.cfgIn[k]], v)
	}
}

func (s *arbStim) Next(in [][]uint64) {
	s.ph.Next(func(p int) int {
		if p == arbPhaseIdle {
			return verify.Span(s.r, 1, 30)
		}
		return verify.Span(s.r, 50, 600)
	})
	// Resets: rare ones anywhere, and more while a warp is being granted
	// (rare enough that most warps of degree lanes see their last grant).
	if s.rstLeft == 0 && (s.r.IntN(1500) == 0 || (s.busy && s.r.IntN(40+2*s.g.lanes) == 0)) {
		s.rstLeft = verify.Span(s.r, 1, 2)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	if !s.pending && s.r.Float64() < arbPValid[s.ph.Phase()] {
		s.offered, s.pending = s.next(), true
	}
	if s.pending {
		in[s.valid][0] = 1
		arbPutLanes(in[s.addr], s.offered.addrs, s.g.addrBits)
		in[s.active][0] = s.offered.active
		s.putCfg(in, s.offered.cfg)
		return
	}
	// A bubble: junk beside valid_i = 0, and now and then a new
	// configuration (which must not move a held warp's lanes).
	if s.r.IntN(2) == 0 {
		for k := range in[s.addr] {
			in[s.addr][k] = s.r.Uint64()
		}
		in[s.active][0] = s.r.Uint64()
	}
	if s.r.IntN(8) == 0 {
		s.cfgNow = s.g.randomCfg()
	}
	s.putCfg(in, s.cfgNow)
}

func (s *arbStim) Observe(in, out [][]uint64) {
	rst := in[s.rst][0]&1 == 1
	valid := in[s.valid][0]&1 == 1
	ready := out[s.ready][0]&1 == 1
	gv := out[s.grantValid][0]&1 == 1
	last := out[s.last][0]&1 == 1
	if gv {
		s.grantCycles++
	}
	if !valid {
		s.bubbles++
	}
	if rst {
		s.resets++
		switch {
		case gv && !last:
			s.midResets++
		case valid && ready:
			s.acceptResets++
		}
		// The reset empties the arbiter; the offer is dropped.
		s.busy, s.pending = false, false
		return
	}
	switch {
	case valid && ready:
		s.accepted++
		if gv {
			s.backToBack++
		}
		if s.offered.active == 0 {
			s.emptyWarps++
		}
		s.corners[s.offered.corner]++
		s.maxDegree = max(s.maxDegree, int(out[s.deg][0]))
		s.pending, s.busy = false, true
	case valid:
		s.stalled++
	}
	if gv && last && !(valid && ready) {
		s.busy = false
	}
}

func (s *arbStim) Coverage() string {
	var phases []string
	for i, n := range arbPhaseNames {
		if s.ph.Seen(i) {
			phases = append(phases, n)
		}
	}
	var corners []string
	for c, n := range s.corners {
		corners = append(corners, fmt.Sprintf("%s %d", c, n))
	}
	slices.Sort(corners)
	return fmt.Sprintf("%d warps accepted (%d back to back, %d empty, largest degree %d), %d grant cycles, %d cycles stalled, %d bubbles, "+
		"%d reset cycles (%d in a grant sequence, %d on an accept); phases: %s; corners: %s",
		s.accepted, s.backToBack, s.emptyWarps, s.maxDegree, s.grantCycles, s.stalled, s.bubbles,
		s.resets, s.midResets, s.acceptResets, strings.Join(phases, ", "), strings.Join(corners, ", "))
}
