package sampler

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/goid"
)

// FuzzParseLeaked: any dump parses, and every goroutine it names has a
// header line that says "(leaked)".
func FuzzParseLeaked(f *testing.F) {
	f.Add([]byte(leakDump))
	f.Fuzz(func(t *testing.T, b []byte) {
		leaked := map[uint64]bool{}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if id, rest, ok := goid.ParseHeader(line); ok && bytes.Contains(rest, []byte("(leaked)")) {
				leaked[id] = true
			}
		}
		for _, g := range parseLeaked(b, nil) {
			if !leaked[g.id] {
				t.Fatalf("goroutine %d named, not in a leaked header", g.id)
			}
		}
	})
}
