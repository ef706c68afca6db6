package pyroscope

import (
	"slices"

	"github.com/google/pprof/profile"
)

// Pyroscope's distributor splits a pushed profile by its samples' labels:
// each distinct label set becomes a series of its own, whose labels are
// the push's series labels and the sample's (a series label wins over a
// sample label of the same name). That is how pyroscope-go's tags, which
// are pprof labels, become series, and how the labels of a profile of
// this module (state, wait_reason, and the program's labels such as
// http.route) do.
//
// A series label name must be a Prometheus label name, [a-zA-Z_]
// [a-zA-Z0-9_]*: Pyroscope servers of before UTF-8 label names refuse a
// push with any other, and later ones turn the dots of a name into
// underscores unless the client asks for UTF-8 names. So Encode writes
// each sample label name as labelName does, with the same result on both:
// http.route reaches the store as http_route.

// labelName returns name as a Prometheus label name: each byte outside
// [a-zA-Z0-9_] an underscore, and an underscore before a leading digit.
func labelName(name string) string {
	if validLabelName(name) {
		return name
	}
	b := make([]byte, 0, len(name)+1)
	if name == "" || isDigit(name[0]) {
		b = append(b, '_')
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; isNameByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// validLabelName reports whether name is a Prometheus label name.
func validLabelName(name string) bool {
	if name == "" || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNameByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// nameLabels renames, in place, each string label of p's samples whose
// name is not a Prometheus label name (labelName). Where two names of a
// sample would become one, one that was already valid keeps it, else the
// first in byte order: the same on every sample, so that samples of one
// label set stay in one series.
func nameLabels(p *profile.Profile) {
	var bad []string
	for _, s := range p.Sample {
		bad = bad[:0]
		for k := range s.Label {
			if !validLabelName(k) {
				bad = append(bad, k)
			}
		}
		slices.Sort(bad)
		for _, k := range bad {
			v := s.Label[k]
			delete(s.Label, k)
			if n := labelName(k); s.Label[n] == nil {
				s.Label[n] = v
			}
		}
	}
}
