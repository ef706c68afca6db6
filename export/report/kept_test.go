package report

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestDeepWander checks the call tree of a file whose threads move among
// deep stacks by every encoding: the samples of each stack must sit at the
// node whose path is the stack's code frames, as the reader gives them
// whole, though the walk starts at the frames a record kept.
func TestDeepWander(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.DeepWander(3, 5000))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	it := f.Samples()
	for it.Next() {
		var b strings.Builder
		st := it.Sample().Stack
		for i := len(st) - 1; i >= 0; i-- {
			if fr := f.Frame(st[i]); fr.File != tachyon.LabelFile {
				fmt.Fprintf(&b, "%s:%d;", fr.Func, fr.Line)
			}
		}
		want[b.String()]++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	p, err := Aggregate(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, n := range p.Nodes {
		if n.Self == 0 {
			continue
		}
		var path []string
		for m := n; m.Parent >= 0; m = p.Nodes[m.Parent] {
			fr := p.Frame(m.Frame)
			path = append(path, fmt.Sprintf("%s:%d;", fr.Func, fr.Line))
		}
		var b strings.Builder
		for i := len(path) - 1; i >= 0; i-- {
			b.WriteString(path[i])
		}
		got[b.String()] += n.Self
	}
	if len(want) < 1000 || !maps.Equal(got, want) {
		t.Fatalf("%d stacks, %d in the call tree, differing", len(want), len(got))
	}
}
