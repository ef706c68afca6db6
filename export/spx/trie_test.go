package spx

import (
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestDeepWander checks the stacks loaded from a file whose threads move
// among deep stacks by every encoding: each thread's samples must have the
// names of its stacks' code frames as the reader gives them whole, though
// the trie is walked from the frames a record kept.
func TestDeepWander(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.DeepWander(3, 5000))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][]string{}
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		var names []string
		for i := len(s.Stack) - 1; i >= 0; i-- {
			if fr := f.Frame(s.Stack[i]); fr.File != tachyon.LabelFile {
				names = append(names, funcName(fr.Func))
			}
		}
		want[s.ThreadID] = append(want[s.ThreadID], strings.Join(names, ";"))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, untimed := range []bool{false, true} {
		p, err := load(f, 0, nil, untimed, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range p.threads {
			var got []string
			for _, r := range th.runs {
				var names []string
				for _, id := range p.stacks.Stack(r.stack) {
					names = append(names, p.names[id])
				}
				for range r.n {
					got = append(got, strings.Join(names, ";"))
				}
			}
			if !slices.Equal(got, want[th.id]) {
				t.Fatalf("untimed %v: thread %d: the stacks of %d samples differ from the reader's %d", untimed, th.id, len(got), len(want[th.id]))
			}
		}
		if len(p.threads) != 3 || p.stacks.Len() < 1000 {
			t.Fatalf("%d threads, %d stacks", len(p.threads), p.stacks.Len())
		}
	}
}
