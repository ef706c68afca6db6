package auto

import (
	"os"
	"os/exec"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestBuildsWithoutUnixSignals cross-compiles the package for systems
// with no kill(2) (Windows, Plan 9) or no signals at all (js, wasip1): a
// program that imports it must build wherever Go does.
func TestBuildsWithoutUnixSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the profiler four times")
	}
	gobin := testutil.Tool(t, "go")
	for _, target := range [][2]string{{"windows", "amd64"}, {"js", "wasm"}} {
		t.Run(target[0], func(t *testing.T) {
			cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
			cmd.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build ./auto: %v\n%s", target[0], target[1], err, out)
			}
		})
	}
}
