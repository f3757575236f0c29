package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// bankArbiterDoc introduces the bank_arbiter block in the spec reference.
const bankArbiterDoc = `A bank arbiter: the bank-conflict degree of a warp's shared-memory access
and a conflict-free subset of its lanes, with hashed banks and, for
atomics, hashed locks (002_*). Its degree is what the elastic pipeline's
` + "`in_degree_i`" + ` and the warp ready mask consume (001_*).

Ports: ` + "`addr_i [lanes*addr_bits-1:0]`" + ` (word addresses, lane 0 in the least
significant bits), ` + "`active_i [lanes-1:0]`" + ` in; ` + "`bank_o [lanes*bank_bits-1:0]`" + ` (each
lane's bank), ` + "`degree_o [clog2(lanes+1)-1:0]`" + ` (the largest number of distinct
addresses among active lanes in one bank; of active lanes when broadcast =
false; 0 when none is active), ` + "`grant_o [lanes-1:0]`" + ` (for every bank, the
active lanes whose address equals that of the bank's lowest active lane;
only that lane when broadcast = false) out. With ` + "`lock_hash`" + `, also
` + "`lock_o [lanes*lock_bits-1:0]`" + `, ` + "`lock_degree_o`" + ` (the largest number of distinct
addresses on one lock index) and ` + "`position_degree_o`" + ` (the largest number of
active lanes on one address).

A referenced hash with configuration ports (` + "`configurable = true`" + `) has them
wired through, shared by every lane: ` + "`hash_cfg_*`" + ` for ` + "`hash`" + `, ` + "`lock_cfg_*`" + ` for
` + "`lock_hash`" + `. A hash sees the low addr_bits of the hash unit of each lane's
address.

Combinational, unless ` + "`serialize = true`" + `: then clocked (` + "`clk`" + `, synchronous
active-high ` + "`rst`" + `) with ` + "`valid_i`" + `/` + "`ready_o`" + `: a warp is accepted when ` + "`valid_i &\nready_o`" + `; from the next cycle on, each cycle raises ` + "`grant_valid_o`" + ` with
` + "`grant_o`" + ` = the next conflict-free subset of the lanes not yet granted and
` + "`last_o`" + ` on the final one, so a warp of degree d takes exactly d grant
cycles (one empty grant when no lane is active). ` + "`ready_o`" + ` is high when idle
or in the last grant cycle. ` + "`degree_o`" + `, ` + "`bank_o`" + ` and the lock outputs are
combinational in ` + "`addr_i`" + ` and ` + "`active_i`" + `, for the warp being offered.`

// MaxArbiterLanes bounds an arbiter's lanes: it compares every pair of
// lanes, so its size grows with lanes².
const MaxArbiterLanes = 64

var bankArbiterAttrs = []Attr{
	{Name: "lanes", Required: true, Type: "number", Doc: fmt.Sprintf("Lanes of the warp access, 2..%d.", MaxArbiterLanes)},
	{Name: "addr_bits", Required: true, Type: "number", Doc: "Word-address bits per lane, 1..64."},
	{Name: "hash", Type: "reference", Refers: "hash", Doc: "The bank hash, a `hash` unit of the files loaded together, written `hash.NAME`; its addr_bits must not exceed the arbiter's, and its bank_bits is the arbiter's. The arbiter instantiates its module once per lane."},
	{Name: "bank_bits", Type: "number", Doc: "Without `hash`: bank = address mod 2^bank_bits, 1..16 and <= addr_bits. Not allowed with `hash`."},
	{Name: "broadcast", Type: "bool", Doc: "Lanes on one address are served together (default true); false counts and grants lanes, as for atomics."},
	{Name: "lock_hash", Type: "reference", Refers: "hash", Doc: "002_*: the lock index of each address, a `hash` unit written `hash.NAME` (e.g. the 10 low word-address bits, or a hash of them); adds `lock_o`, `lock_degree_o` and `position_degree_o`."},
	{Name: "serialize", Type: "bool", Doc: "Clocked: grant the warp's lanes over degree cycles (see above); default false."},
	clockingAttrs[0], clockingAttrs[1], clockingAttrs[2],
	pipelineAttr,
}

var bankArbiterSchema = schemaOf(bankArbiterAttrs)

// BankArbiter is a decoded `bank_arbiter "NAME" { ... }` block.
type BankArbiter struct {
	Name     string
	Lanes    int
	AddrBits int
	// BankBits is the bank-index width: the hash's bank_bits when Hash is
	// set, else the bank_bits argument (bank = address mod 2^BankBits).
	BankBits  int
	Hash      *UnitRef // nil: the low bank_bits address bits
	LockHash  *UnitRef // nil: no lock outputs
	Broadcast bool
	Serialize bool
	// Clocking pipelines the combinational arbiter at clock_fo4 when set.
	Clocking

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (a *BankArbiter) UnitName() string     { return a.Name }
func (a *BankArbiter) UnitKind() string     { return "bank_arbiter" }
func (a *BankArbiter) DeclRange() hcl.Range { return a.Range }

func (a *BankArbiter) Variant() string {
	v := "mod"
	if a.Hash != nil {
		v = "hash " + a.Hash.Name
	}
	if a.LockHash != nil {
		v += ", lock hash " + a.LockHash.Name
	}
	if !a.Broadcast {
		v += ", no broadcast"
	}
	if a.Serialize {
		v += ", serializing"
	}
	return v
}

// LockBits is the lock-index width (0 without a lock hash).
func (a *BankArbiter) LockBits() int {
	if h := a.LockHash.Hash(); h != nil {
		return h.BankBits
	}
	return 0
}

func (a *BankArbiter) refs() []*UnitRef {
	var out []*UnitRef
	for _, r := range []*UnitRef{a.Hash, a.LockHash} {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// checkRefs checks the referenced hashes against the arbiter: a hash
// cannot read address bits the arbiter does not have.
func (a *BankArbiter) checkRefs() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, r := range a.refs() {
		h := r.Hash()
		if h == nil {
			continue
		}
		if h.HasClock() {
			diags = append(diags, refDiag(r, "Pipelined hash",
				fmt.Sprintf("hash %q has clock_fo4, but the arbiter places one combinational instance of it per lane, under the same module name. Remove clock_fo4 from the hash and give it to the arbiter, which is then pipelined with the hash inside.", h.Name)))
			continue
		}
		if h.Registered() {
			diags = append(diags, refDiag(r, "Hash with configuration registers",
				fmt.Sprintf("hash %q keeps its configuration in registers (config = \"register\"), but the arbiter places one instance of the hash per lane, which would hold %d copies of it. Give the hash config = \"ports\": the arbiter then has its configuration ports (%s_cfg_*), shared by every lane.", h.Name, a.Lanes, map[string]string{"hash": "hash", "lock_hash": "lock"}[r.Attr])))
			continue
		}
		if h.AddrBits > a.AddrBits {
			diags = append(diags, refDiag(r, "Width mismatch",
				fmt.Sprintf("hash %q reads %d address bits, but the arbiter's addresses have addr_bits = %d. Give the hash addr_bits <= %d, or widen the arbiter.", h.Name, h.AddrBits, a.AddrBits, a.AddrBits)))
		}
	}
	if h := a.Hash.Hash(); h != nil {
		a.BankBits = h.BankBits
	}
	return diags
}

// decodeBankArbiterBlock decodes a `bank_arbiter "NAME"` block. It returns
// nil when the block has errors; its references are resolved later by the
// loader.
func (d *decoder) decodeBankArbiterBlock(block *hcl.Block) (*BankArbiter, hcl.Diagnostics) {
	bd, ranges := d.newBlockDecoder(block, bankArbiterSchema)
	a := &BankArbiter{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges, Broadcast: true}
	a.Lanes = bd.intIn("lanes", 2, MaxArbiterLanes)
	a.AddrBits = bd.intIn("addr_bits", 1, MaxLaneAddrBits)
	a.Hash = bd.ref("hash", "hash")
	a.LockHash = bd.ref("lock_hash", "hash")
	switch {
	case bd.has("bank_bits") && bd.has("hash"):
		bd.errorf(bd.rng("bank_bits"), "Argument not allowed", "bank_bits is the referenced hash's (its bank_bits); remove bank_bits, or remove hash for bank = address mod 2^bank_bits.")
	case bd.has("bank_bits"):
		a.BankBits = bd.intIn("bank_bits", 1, MaxBankBits)
		if a.BankBits > 0 && a.AddrBits > 0 && a.BankBits > a.AddrBits {
			bd.errorf(bd.rng("bank_bits"), "Invalid bank_bits", "bank_bits (%d) must not exceed addr_bits (%d).", a.BankBits, a.AddrBits)
		}
	case !bd.has("hash"):
		bd.missing("bank_bits", " unless hash names the bank hash")
	}
	if bd.has("broadcast") {
		a.Broadcast, _ = bd.bool("broadcast")
	}
	if bd.has("serialize") {
		a.Serialize, _ = bd.bool("serialize")
	}
	a.Clocking = bd.clocking()
	if a.Serialize && a.HasClock() {
		bd.errorf(a.Clocking.Range, "Argument not allowed", "A serializing arbiter is clocked already, with its own protocol; clock_fo4 pipelines combinational units only. Remove clock_fo4 or serialize.")
	}
	if bd.failed {
		return nil, bd.diags
	}
	return a, bd.diags
}
