package flow

import (
	"crypto/sha256"
	"regexp"
	"sync"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// Fingerprint identifies a design up to its name: the SHA-256 of its
// readable and gate-level Verilog (and those of the units it
// instantiates), written with a fixed header, with the unit's own name
// (and its gate-level module's, NAME_gates) replaced wherever it stands
// as a whole word. Two units with the same
// fingerprint are one design under two names, and a check of one is a
// check of the other.
func Fingerprint(d *netlist.Design) ([32]byte, error) {
	info := rtl.Info{Version: "lsugen", Source: "fingerprint"}
	h := sha256.New()
	name := regexp.MustCompile(`\b` + regexp.QuoteMeta(d.Name) + `(_gates)?\b`)
	for _, m := range append(d.Submodules(), d) {
		files, err := rtl.Files(m, info)
		if err != nil {
			return [32]byte{}, err
		}
		names := []string{rtl.RTLFileName(m), rtl.GatesFileName(m)}
		if bank := rtl.BankFileName(m); bank != "" {
			names = append(names, bank)
		}
		for _, f := range names {
			h.Write(name.ReplaceAll(files[f], []byte("UNIT$1")))
			h.Write([]byte{0})
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, nil
}

var distinct struct {
	once  sync.Once
	units []Unit
	same  map[string]string
	err   error
}

// DistinctExamples are the example units with one unit per distinct
// design, in ExampleUnits' order, and for each unit left out the unit
// whose design it shares (its Fingerprint). Tests that run a unit's
// design through a simulator or a prover run these, so that no design is
// checked twice.
func DistinctExamples() ([]Unit, map[string]string, error) {
	distinct.once.Do(func() {
		us, err := ExampleUnits()
		if err != nil {
			distinct.err = err
			return
		}
		first := map[[32]byte]string{}
		distinct.same = map[string]string{}
		for _, u := range us {
			fp, err := Fingerprint(u.Design)
			if err != nil {
				distinct.err = err
				return
			}
			if name, ok := first[fp]; ok {
				distinct.same[u.Design.Name] = name
				continue
			}
			first[fp] = u.Design.Name
			distinct.units = append(distinct.units, u)
		}
	})
	return distinct.units, distinct.same, distinct.err
}
