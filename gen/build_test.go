package gen

import (
	"runtime/debug"
	"testing"
)

func TestBuildOf_CommitAndDirtyMark(t *testing.T) {
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, Version + " (commit unknown)"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}, Version + " (commit 0123456789ab)"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc1234"}, {Key: "vcs.modified", Value: "true"}}, Version + " (commit abc1234-dirty)"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, Version + " (commit unknown-dirty)"},
	} {
		if got := BuildOf(c.settings).Stamp(); got != c.want {
			t.Errorf("%v: %q, want %q", c.settings, got, c.want)
		}
	}
}
