package hashspeed_test

import (
	"testing"

	"github.com/lsugen/lsugen/tools/study/studies"
)

// TestStudies_Registered: the study is in the list under its name.
func TestStudies_Registered(t *testing.T) {
	if s := studies.ByName("hash-speedup"); s == nil || s.Paper() != "000" {
		t.Errorf("hash-speedup: %v", s)
	}
}
