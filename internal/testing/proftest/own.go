package proftest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// module is the import path of the profiler's module.
const module = "github.com/gotachyon/profiler"

// workloads are the module's packages whose functions are test workloads,
// sampled like a program's.
var workloads = []string{module + "/internal/workload/demo.", module + "/internal/testing/testutil.", module + "/internal/workload/benchload."}

// ProfilerFrame reports whether fn, a frame's function, is the module's
// product code: in one of its packages, but not a test workload's.
func ProfilerFrame(fn string) bool {
	rest, ok := strings.CutPrefix(fn, module)
	if !ok || rest == "" || rest[0] != '.' && rest[0] != '/' {
		return false // another module, or github.com/gotachyon/profiler_test
	}
	for _, w := range workloads {
		if strings.HasPrefix(fn, w) {
			return false
		}
	}
	return true
}

// ProfilerSamples reads the Tachyon file at path and returns the samples
// that show the profiler's own code on a goroutine that is not the test's:
// a stack with a frame of the module's product code (ProfilerFrame) and
// none that ours says is the test's own (the test function calling Stop,
// a workload of the test). Each is "goroutine N: stack (count samples)",
// stack outermost first, most samples first. It also returns how many
// samples show the test's own code: a profile that left out every
// goroutine would have none of the profiler's either.
func ProfilerSamples(tb testing.TB, path string, ours func(fn string) bool) (bad []string, test int) {
	tb.Helper()
	f := Open(tb, path)
	count, tests := map[string]int{}, 0
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		profiler, test := false, false
		for _, i := range s.Stack {
			fn := f.Frame(i).Func
			profiler = profiler || ProfilerFrame(fn)
			test = test || ours(fn)
		}
		if test {
			tests++
		}
		if !profiler || test {
			continue
		}
		names := make([]string, len(s.Stack))
		for k, i := range s.Stack {
			names[len(s.Stack)-1-k] = f.Frame(i).Func
		}
		count[fmt.Sprintf("goroutine %d: %s", s.ThreadID, strings.Join(names, ";"))]++
	}
	if err := it.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	keys := slices.Collect(maps.Keys(count))
	slices.SortFunc(keys, func(a, b string) int { return count[b] - count[a] })
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s (%d samples)", k, count[k])
	}
	return keys, tests
}
