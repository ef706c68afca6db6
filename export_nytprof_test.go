package profiler

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/nytprof"
	"github.com/gotachyon/profiler/sampler"
)

// TestWithNYTProf profiles busy goroutines and checks the NYTProf file Stop
// writes: Go sub names, and with Devel::NYTProf installed a strict load.
func TestWithNYTProf(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nytprof.out")
	_, p := profileFor(t, 300*time.Millisecond, WithNYTProf(out, nytprof.Options{}), WithBackend(sampler.Snapshot))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("NYTProf 5 0\n")) || !bytes.Contains(b, []byte("github.com/gotachyon/profiler::")) {
		t.Fatalf("%s: not an NYTProf file naming this package's functions", out)
	}
	perl := testutil.Tool(t, "perl")
	if exec.Command(perl, "-MDevel::NYTProf::Data", "-e1").Run() != nil {
		testutil.Missing(t, "perl module Devel::NYTProf::Data")
	}
	summary := testutil.Shared(t, "tools", "nytprof-summary.pl")
	if o, err := exec.Command(perl, summary, "--strict", "--no-lines", out).CombinedOutput(); err != nil {
		t.Fatalf("nytprof-summary.pl --strict: %v\n%s", err, o)
	}
}
