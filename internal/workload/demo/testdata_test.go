package demo_test

import (
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/demo"
	"github.com/gotachyon/profiler/reader"
)

// TestCommittedProfiles checks the demo profiles other packages' tests use
// (testdata/demo/{wall,cpu}.bin, made by "tachyon demo -duration 2s
// -goroutines 20", cpu with -rate 250): valid, and of the demo's shape.
func TestCommittedProfiles(t *testing.T) {
	for _, name := range []string{"wall", "cpu"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testutil.RepoRoot(), "testdata", "demo", name+".bin")
			proftest.Validate(t, path)
			f, err := reader.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sum, err := demo.Summarize(f)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Roles["hotA"].Samples == 0 || sum.Roles["hotB"].Samples == 0 {
				t.Errorf("no hotA/hotB samples: %+v", sum.Roles)
			}
			if name == "wall" {
				for role, n := range map[string]int{"sleeper": 4, "blockedOnChan": 1, "waitPipe": 1, "readSyscall": 1, "idleWorker": 20} {
					if g := sum.Roles[role].Goroutines; g != n {
						t.Errorf("%s: %d goroutines, want %d", role, g, n)
					}
				}
			}
		})
	}
}
