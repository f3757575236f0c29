package specs

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// The unit names a user types on the command line (SPEC:UNIT references,
// --unit patterns) are resolved here, with the same "did you mean"
// suggestions as the references between units of a spec (resolveRefs).

// Closest is the unit name nearest to s by edit distance when it is near
// enough to be a likely typo (spec references' rule, closest, and at most
// half of s changed, so a one-letter name suggests nothing), else "".
func Closest(s string, candidates []string) string {
	best := closest(s, candidates)
	if best == "" || 2*EditDistance(s, best) > len(s) {
		return ""
	}
	return best
}

// didYouMeanUnit is " Did you mean X?" for Closest, or "".
func didYouMeanUnit(s string, candidates []string) string {
	if best := Closest(s, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %q?", best)
	}
	return ""
}

// SplitUnitRef splits a reference SPEC:UNIT at its last colon into the
// spec file and the unit name. A reference without a colon, or one that
// names an existing file as a whole (a path with a colon in it), has no
// unit name: the file's only unit of the kind wanted (FindUnit).
func SplitUnitRef(ref string) (file, name string) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return ref, ""
	}
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return ref, ""
	}
	return ref[:i], ref[i+1:]
}

// FindUnit is the unit named name among us (the units of spec file file),
// which must be of kind unless kind is "". With name "" it is the only
// unit of kind: none, or several, is an error that names them. A name not
// declared is an error that suggests the nearest one.
func FindUnit(us []Unit, name, kind, file string) (Unit, error) {
	var ofKind []string
	for _, u := range us {
		if kind == "" || u.UnitKind() == kind {
			ofKind = append(ofKind, u.UnitName())
		}
	}
	what := "unit"
	if kind != "" {
		what = kind + " unit"
	}
	if name == "" {
		switch len(ofKind) {
		case 0:
			return nil, fmt.Errorf("%s declares no %s", file, what)
		case 1:
			for _, u := range us {
				if u.UnitName() == ofKind[0] {
					return u, nil
				}
			}
		}
		return nil, fmt.Errorf("%s declares %d %ss (%s): name one, written %s:UNIT", file, len(ofKind), what, strings.Join(ofKind, ", "), file)
	}
	for _, u := range us {
		if u.UnitName() != name {
			continue
		}
		if kind != "" && u.UnitKind() != kind {
			return nil, fmt.Errorf("%s is a%s %s unit, not a%s %s", name, article(u.UnitKind()), u.UnitKind(), article(kind), kind)
		}
		return u, nil
	}
	list := ""
	if len(ofKind) > 0 {
		list = fmt.Sprintf(" Its %ss: %s.", what, strings.Join(ofKind, ", "))
	}
	return nil, fmt.Errorf("%s declares no unit %q.%s%s", file, name, suggestion(name, ofKind, us), list)
}

// SelectUnits is the units of us whose names match any of the glob
// patterns (path.Match), in their order; all of us when there are no
// patterns. A bad pattern, or one that matches no unit, is an error that
// suggests the nearest name and lists the units.
func SelectUnits(us []Unit, patterns []string) ([]Unit, error) {
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.UnitName()
	}
	picked, err := MatchNames(names, patterns)
	if err != nil {
		return nil, err
	}
	var out []Unit
	for i, u := range us {
		if picked[i] {
			out = append(out, u)
		}
	}
	return out, nil
}

// MatchNames marks the names that match any of the glob patterns (every
// name when there are none); it is SelectUnits over names, for callers
// that hold generated units.
func MatchNames(names, patterns []string) ([]bool, error) {
	picked := make([]bool, len(names))
	if len(patterns) == 0 {
		for i := range picked {
			picked[i] = true
		}
		return picked, nil
	}
	for _, pat := range patterns {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("--unit %q: %v", pat, err)
		}
		found := false
		for i, n := range names {
			if ok, _ := path.Match(pat, n); ok {
				picked[i], found = true, true
			}
		}
		if found {
			continue
		}
		hint := didYouMeanUnit(pat, names)
		if hint == "" && strings.ContainsAny(pat, `*?[\`) {
			// a glob's literal part may still be near a name
			hint = didYouMeanUnit(strings.Map(func(r rune) rune {
				if strings.ContainsRune(`*?[]\`, r) {
					return -1
				}
				return r
			}, pat), names)
		}
		if strings.ContainsAny(pat, `*?[\`) {
			return nil, fmt.Errorf("no unit matches %q (units: %s)%s", pat, strings.Join(names, ", "), dot(hint))
		}
		return nil, fmt.Errorf("no unit %q in the specs (units: %s)%s", pat, strings.Join(names, ", "), dot(hint))
	}
	return picked, nil
}

// suggestion is " Did you mean X?" for the nearest of the names of the
// wanted kind, else of any unit, or "".
func suggestion(name string, ofKind []string, us []Unit) string {
	if s := didYouMeanUnit(name, ofKind); s != "" {
		return s
	}
	all := make([]string, len(us))
	for i, u := range us {
		all[i] = u.UnitName()
	}
	return didYouMeanUnit(name, all)
}

// article is "n" before a vowel.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

// dot ends a message before a hint.
func dot(hint string) string {
	if hint == "" {
		return ""
	}
	return "." + hint
}
