package gen

import (
	"runtime/debug"
	"sync"
)

// Build is the commit lsugen was built from: go build in a git checkout
// stamps it into the binary (vcs.revision, vcs.modified); a binary built
// elsewhere, and a test binary, has none.
type Build struct {
	Commit string // the revision's first 12 hex digits, "unknown" without one
	Dirty  bool   // built from a tree with uncommitted changes
}

// BuildOf reads the commit from a binary's build settings.
func BuildOf(settings []debug.BuildSetting) Build {
	b := Build{Commit: "unknown"}
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				b.Commit = s.Value[:min(12, len(s.Value))]
			}
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

var thisBuild = sync.OnceValue(func() Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildOf(nil)
	}
	return BuildOf(info.Settings)
})

// ThisBuild is the running binary's Build.
func ThisBuild() Build { return thisBuild() }

// GeneratedBy is the version in the headers of generated files: with the
// commit, so that a file can be traced to the build that wrote it. The
// CLI and lsugen-bench stamp with it, so that both write the same Verilog
// (and share the content-keyed Verilator builds).
func GeneratedBy() string { return "lsugen " + ThisBuild().Stamp() }

// Stamp is Version with the commit, "0.1.0 (commit 0123456789ab-dirty)":
// what --version prints and the headers of generated files carry. The
// JSON reports keep Version alone, which results of the same version
// compare by.
func (b Build) Stamp() string {
	c := b.Commit
	if b.Dirty {
		c += "-dirty"
	}
	return Version + " (commit " + c + ")"
}
