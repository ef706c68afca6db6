package profiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
)

// TestReportAtStop profiles a busy and a blocked goroutine and checks the
// report Stop writes: one page whose data names the mode and backend and
// holds the samples of the Tachyon file. A run too short for a loaded
// machine to give the snapshots a sample is retried longer.
func TestReportAtStop(t *testing.T) {
	testutil.Retry(t, 300*time.Millisecond, 4, func(run time.Duration) error {
		out := filepath.Join(t.TempDir(), "report.html")
		path, p := profileFor(t, run, WithExport(out, report.AtStop(report.Options{Backend: "snapshot"})), WithBackend(sampler.Snapshot))
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		const open = `<script type="application/json" id="tachyon-data">`
		_, rest, ok := bytes.Cut(page, []byte(open))
		data, _, ok2 := bytes.Cut(rest, []byte("</script>"))
		if !ok || !ok2 {
			t.Fatalf("%s: no data script", out)
		}
		var d struct {
			Meta struct {
				Mode, Backend string
				Samples       uint64
			}
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		f, err := reader.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if d.Meta.Mode != "wall" || d.Meta.Backend != "snapshot" || d.Meta.Samples != uint64(f.Header.SampleCount) {
			t.Errorf("report meta = %+v, want wall, snapshot, %d samples", d.Meta, f.Header.SampleCount)
		}
		if d.Meta.Samples == 0 {
			return fmt.Errorf("no samples in %v", run)
		}
		return nil
	})
}
