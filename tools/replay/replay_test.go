package replay

import (
	"context"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// load generates unit name of spec file path and returns its spec and
// verification job.
func load(t testing.TB, path, name string) (*specs.SharedMemory, verify.Job) {
	t.Helper()
	s, err := flow.Load([]string{path}, flow.Options{Unit: name})
	if err != nil {
		t.Fatalf("%s: %v %v", path, err, s)
	}
	u := s.Units[0]
	sm, ok := u.Spec.(*specs.SharedMemory)
	if !ok {
		t.Fatalf("%s is a %s", name, u.Spec.UnitKind())
	}
	job, err := units.Job(u.Spec, u.Built)
	if err != nil {
		t.Fatal(err)
	}
	return sm, job
}

func TestReplay_Smoke(t *testing.T) {
	u, job := load(t, "../../specs/large/shared_memory_fermi.hcl", "shmem_fermi")
	w, err := NewWorkload(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../../specs/traces/accelsim/kernelslist.g", "../../specs/traces/fig5a_002.trace"} {
		if err := w.AddFile(f); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Run(context.Background(), job, w, verify.Netlist)
	if err != nil {
		t.Fatal(err)
	}
	var b testWriter
	rep.Write(&b)
	t.Log(string(b))
}

type testWriter []byte

func (w *testWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }
