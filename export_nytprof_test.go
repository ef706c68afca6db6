package profiler

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/export/nytprof"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/sampler"
)

// TestNYTProfAtStop profiles busy goroutines and checks the NYTProf file
// that Stop writes through nytprof.AtStop: Go sub names, and with Devel::NYTProf installed (not under -short)
// a strict load. A run too short for a loaded machine to give the snapshots
// a sample is retried longer.
func TestNYTProfAtStop(t *testing.T) {
	var out string
	testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
		out = filepath.Join(t.TempDir(), "nytprof.out")
		_, p := profileFor(t, d, WithExport(out, nytprof.AtStop(nytprof.Options{})), WithBackend(sampler.Snapshot))
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("NYTProf 5 0\n")) {
			t.Fatalf("%s: not an NYTProf file", out)
		}
		if !bytes.Contains(b, []byte("github.com/gotachyon/profiler::")) {
			return fmt.Errorf("%s: no sub of this package's functions (stats %+v)", out, p.Stats())
		}
		return nil
	})
	if testing.Short() {
		t.Skip("loading the file with Devel::NYTProf runs perl")
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
