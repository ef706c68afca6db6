package pprof

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// topRow is one row of go tool pprof -top -unit=ms.
type topRow struct {
	flat int64 // milliseconds
	fn   string
}

var (
	topTotal = regexp.MustCompile(`Showing nodes accounting for (\d+)ms, ([\d.]+)% of (\d+)ms total`)
	topLine  = regexp.MustCompile(`^\s*(\d+)ms\s+[\d.]+%\s+[\d.]+%\s+\d+ms\s+[\d.]+%\s+(\S.*)$`)
)

// parseTop returns the rows of a pprof -top -unit=ms report and its
// total, failing unless whole is false or the rows account for 100 % of
// the total (a filter such as -tagfocus leaves some out).
func parseTop(t *testing.T, top string, whole bool) (rows []topRow, total int64) {
	t.Helper()
	m := topTotal.FindStringSubmatch(top)
	if m == nil || whole && (m[1] != m[3] || m[2] != "100") {
		t.Fatalf("the nodes shown do not account for 100%% of the total:\n%s", top)
	}
	total, _ = strconv.ParseInt(m[3], 10, 64)
	sc := bufio.NewScanner(strings.NewReader(top))
	for sc.Scan() {
		if m := topLine.FindStringSubmatch(sc.Text()); m != nil {
			ms, _ := strconv.ParseInt(m[1], 10, 64)
			rows = append(rows, topRow{ms, m[2]})
		}
	}
	return rows, total
}

// TestGoToolPprofOnCPU reads the committed wall profile of the demo with
// go tool pprof -top -sample_index=on_cpu: on_cpu is the default, its
// total is the running samples' time, the flat column adds up to it (100
// %), no parked function has flat time (nor the goroutine blocked in a
// read system call), and demo.hotA and demo.hotB are the top two rows.
func TestGoToolPprofOnCPU(t *testing.T) {
	tool := pprofTool(t)
	in := filepath.Join(testutil.RepoRoot(), "testdata", "demo", "wall.bin")
	f := proftest.Open(t, in)
	var b bytes.Buffer
	if err := Write(&b, f, Options{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "wall.pb.gz")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	byState := stateCounts(t, f)
	intervalMS := int64(f.Header.Interval) / 1000
	base := []string{"-top", "-sample_index=on_cpu", "-unit=ms", "-nodefraction=0", "-nodecount=1000"}

	top := runPprof(t, tool, append(base, out)...)
	t.Logf("go tool pprof %s:\n%s", strings.Join(base, " "), top)
	rows, total := parseTop(t, top, true)
	if want := byState[tachyon.Running] * intervalMS; total != want {
		t.Errorf("on_cpu total %dms, want %dms (the running samples)", total, want)
	}
	checkOnCPURows(t, rows, total)
	if def := runPprof(t, tool, "-top", out); !strings.Contains(def, "Type: on_cpu") {
		t.Errorf("the default sample type is not on_cpu:\n%.300s", def)
	}

	if len(rows) < 2 || !strings.HasSuffix(rows[0].fn, "demo.hotA") || !strings.HasSuffix(rows[1].fn, "demo.hotB") {
		t.Errorf("the top rows are not demo.hotA, demo.hotB: %v", rows[:min(3, len(rows))])
	}
	if _, total := parseTop(t, runPprof(t, tool, "-top", "-sample_index=wall", "-unit=ms", "-nodefraction=0", "-nodecount=1000", out), true); total != int64(f.Header.SampleCount)*intervalMS {
		t.Errorf("wall total %dms, want every sample: %dms", total, int64(f.Header.SampleCount)*intervalMS)
	}
}

// checkOnCPURows checks the rows of the on_cpu report: flat adds up to
// total, the parked goroutines' functions have none, and demo.hotA and
// demo.hotB are the first of the demo's functions.
func checkOnCPURows(t *testing.T, rows []topRow, total int64) {
	t.Helper()
	var sum int64
	var demo []string
	for _, r := range rows {
		sum += r.flat
		if r.flat == 0 {
			continue
		}
		for _, parked := range []string{"idleWorker", "blockedOnChan", "sleeper", "waitPipe", "readSyscall"} {
			if strings.HasSuffix(r.fn, "demo."+parked) {
				t.Errorf("%s, parked, has %dms on_cpu", r.fn, r.flat)
			}
		}
		if strings.Contains(r.fn, "/internal/workload/demo.") {
			demo = append(demo, r.fn[strings.LastIndex(r.fn, "/")+1:])
		}
	}
	if sum != total {
		t.Errorf("flat adds up to %dms of %dms", sum, total)
	}
	if len(demo) < 2 || demo[0] != "demo.hotA" || demo[1] != "demo.hotB" {
		t.Errorf("the demo's functions with on-CPU time, by flat: %v; want demo.hotA, demo.hotB first", demo)
	}
}
