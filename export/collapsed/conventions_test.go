package collapsed

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// flamegraph.pl reads each line as "STACK COUNT" (the count after the last
// run of spaces) and splits STACK at ';'.
var foldedLine = regexp.MustCompile(`^(.*\S)\s+(\d+)$`)

// TestOptionsFlamegraphConventions writes every public vector with the
// func and func-line formats and each option and checks that every line parses the way flamegraph.pl parses
// it, that the counts add up to the samples kept by the state filter, and
// that --by-goroutine roots every stack at a goroutine frame.
func TestOptionsFlamegraphConventions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Vectors(t, "tachyon"), "*.bin"))
	opts := []Options{
		{Frames: Func},
		{Frames: FuncLine, ByGoroutine: true},
		{Frames: FuncLine, States: []tachyon.State{tachyon.Running, tachyon.Syscall}},
		{Frames: Func, ByGoroutine: true, States: []tachyon.State{tachyon.Blocked}},
	}
	for _, path := range files {
		f := proftest.Open(t, path)
		var byState [tachyon.NumStates]uint64
		it := f.Samples()
		for it.Next() {
			if s := it.Sample(); len(s.Stack) > 0 {
				byState[s.Status.State()]++
			}
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		for _, o := range opts {
			var want uint64
			for st, n := range byState {
				if len(o.States) == 0 || containsState(o.States, tachyon.State(st)) {
					want += n
				}
			}
			var b bytes.Buffer
			if err := Write(&b, f, o); err != nil {
				t.Fatal(err)
			}
			var got uint64
			for _, line := range strings.SplitAfter(b.String(), "\n") {
				if line == "" {
					continue
				}
				m := foldedLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
				if m == nil || !strings.HasSuffix(line, "\n") {
					t.Fatalf("%s %+v: line %q is not STACK COUNT", filepath.Base(path), o, line)
				}
				n, _ := strconv.ParseUint(m[2], 10, 64)
				got += n
				frames := strings.Split(m[1], ";")
				if o.ByGoroutine && !strings.HasPrefix(frames[0], "goroutine ") {
					t.Fatalf("%s %+v: stack %q has no goroutine root", filepath.Base(path), o, m[1])
				}
			}
			if got != want {
				t.Errorf("%s %+v: %d samples folded, want %d", filepath.Base(path), o, got, want)
			}
		}
	}
}

func containsState(ss []tachyon.State, s tachyon.State) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
