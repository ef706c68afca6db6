package report

import (
	"os"
	"os/exec"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestBuildsOn32Bit cross-compiles the package for 32-bit systems, where
// int holds 31 bits: an Options bound that int cannot hold would keep it,
// and the tachyon command, from building there.
func TestBuildsOn32Bit(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the package")
	}
	for _, arch := range []string{"386"} {
		t.Run(arch, func(t *testing.T) {
			cmd := exec.Command(testutil.Tool(t, "go"), "build", "-o", os.DevNull, ".")
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOARCH=%s go build ./export/report: %v\n%s", arch, err, out)
			}
		})
	}
}
