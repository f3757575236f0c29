// Package atomics is the cycle model of shared-memory atomics of
// "Simulation and Architecture Improvements of Atomic Operations on GPU
// Scratchpad Memory" (002_*) and its studies: the synthetic patterns of
// Fig. 5, the histogram of Figs. 4 and 7 and the Hough transform of Fig. 8,
// each under the baseline addressing of banks and locks and under the XOR
// and ADD hashes.
//
// A warp's atomic add is the paper's four-state machine (§III), repeated
// while lanes lose their lock:
//
//	Read    LDSLK: Read cycles per bank-conflict level of the active lanes
//	Update  IADD:  Update cycles
//	Write   STSUL: Write cycles per bank-conflict level of the lanes that
//	               acquired their lock
//	Branch  BRA:   Branch cycles (issued every iteration; predicated off on
//	               the last)
//
// In each iteration every lock is acquired by one active lane (the lowest
// numbered), so lanes on one lock, whether on one address (a position
// conflict) or on addresses aliased to it (a lock conflict), take turns,
// and the iterations are the largest number of lanes on one lock. The
// bank-conflict level of a load or store is the largest number of distinct
// addresses in one bank (lanes on one address are served together).
//
// The model shares no code with tools/conflicts' counters (it uses only
// their Mapping type to name a bank or lock function), so the two check
// each other: a test ties the iterations to conflicts' degrees.
package atomics

import (
	"github.com/lsugen/lsugen/tools/conflicts"
)

// Latencies are the cycles of the FSM's states.
type Latencies struct {
	Read, Update, Write, Branch int
}

// Fermi are the latencies the paper measured on Fermi with asfermi
// micro-benchmarks (§III): Read 32 and Write 36 per bank-conflict level,
// Update 18, Branch 32.
var Fermi = Latencies{Read: 32, Update: 18, Write: 36, Branch: 32}

// Memory is a shared memory's bank and lock addressing with the FSM's
// latencies. It keeps scratch space between calls and is not safe for
// concurrent use.
type Memory struct {
	Bank, Lock conflicts.Mapping
	Lat        Latencies

	// Scratch, by bank or lock index: a stamp of the call (and iteration)
	// that last wrote the entry, so nothing is cleared between calls.
	stamp                uint32
	bankStamp, lockStamp []uint32
	bankAddrs            [][]uint64 // distinct addresses met per bank in this pass
	active, won          []int32
	banks, locks         []uint32
}

// Result is one warp atomic's cost.
type Result struct {
	Cycles     int
	Iterations int
	// ReadLevels and WriteLevels are the bank-conflict levels summed over
	// the iterations.
	ReadLevels, WriteLevels int
}

// Atomic is the cycles of one warp's atomic add on the word addresses of
// its active lanes (one entry per active lane, in lane order).
func (m *Memory) Atomic(addrs []uint64) Result {
	if len(addrs) == 0 {
		return Result{}
	}
	m.grow(len(addrs))
	m.banks, m.locks = m.banks[:len(addrs)], m.locks[:len(addrs)]
	for i, a := range addrs {
		m.banks[i] = m.Bank.Map(a)
		m.locks[i] = m.Lock.Map(a)
	}
	m.active = m.active[:0]
	for i := range addrs {
		m.active = append(m.active, int32(i))
	}
	var r Result
	for len(m.active) > 0 {
		read := m.level(addrs, m.active)
		// Each lock goes to its lowest active lane.
		m.next()
		m.won = m.won[:0]
		rest := m.active[:0]
		for _, l := range m.active {
			k := m.locks[l]
			if m.lockStamp[k] != m.stamp {
				m.lockStamp[k] = m.stamp
				m.won = append(m.won, l)
			} else {
				rest = append(rest, l)
			}
		}
		write := m.level(addrs, m.won)
		m.active = rest
		r.Iterations++
		r.ReadLevels += read
		r.WriteLevels += write
		r.Cycles += m.Lat.Read*read + m.Lat.Update + m.Lat.Write*write + m.Lat.Branch
	}
	return r
}

// level is the bank-conflict level of lanes: the most distinct addresses
// in one bank.
func (m *Memory) level(addrs []uint64, lanes []int32) int {
	m.next()
	worst := 0
	for _, l := range lanes {
		b := m.banks[l]
		if m.bankStamp[b] != m.stamp {
			m.bankStamp[b] = m.stamp
			m.bankAddrs[b] = m.bankAddrs[b][:0]
		}
		seen := false
		for _, a := range m.bankAddrs[b] {
			if a == addrs[l] {
				seen = true
				break
			}
		}
		if !seen {
			m.bankAddrs[b] = append(m.bankAddrs[b], addrs[l])
			worst = max(worst, len(m.bankAddrs[b]))
		}
	}
	return worst
}

func (m *Memory) grow(lanes int) {
	if len(m.bankStamp) != m.Bank.Size {
		m.bankStamp = make([]uint32, m.Bank.Size)
		m.bankAddrs = make([][]uint64, m.Bank.Size)
	}
	if len(m.lockStamp) != m.Lock.Size {
		m.lockStamp = make([]uint32, m.Lock.Size)
	}
	if cap(m.banks) < lanes {
		m.banks = make([]uint32, lanes)
		m.locks = make([]uint32, lanes)
	}
}

// next starts a pass: a new stamp, the scratch cleared when the stamp
// wraps (so an old entry can never carry the current stamp).
func (m *Memory) next() {
	m.stamp++
	if m.stamp == 0 {
		clear(m.bankStamp)
		clear(m.lockStamp)
		m.stamp = 1
	}
}
