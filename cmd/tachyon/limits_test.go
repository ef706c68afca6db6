package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/limits"
	"github.com/gotachyon/profiler/export/spx"
	"github.com/gotachyon/profiler/internal/testing/hostile"
)

// TestLimitHints: past an export's limit the command's error names the
// flags that move it, which the library's error does not.
func TestLimitHints(t *testing.T) {
	for l := limits.StackFrames; l <= limits.Reports; l++ {
		if limitHints[l] == "" {
			t.Errorf("limit %d has no hint", l)
		}
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	frames := write("frames.bin", hostile.ManyFrames(100))
	huge := write("huge.bin", hostile.HugeName(1000, 50))
	threads := write("threads.bin", hostile.ManyThreads(spx.MaxReports+1))
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--to", "pprof", "--max-samples", "10", frames, "-o", out},
			"the profile has more than 10 distinct samples (stack, goroutine, state), the limit on what the export keeps in memory (raise it with --max-samples, or fold goroutines with --max-goroutines)\n"},
		{[]string{"convert", "--to", "nytprof", "--max-name-bytes", "100", huge, "-o", out},
			"more than the limit of 100 (raise it with --max-name-bytes)\n"},
		{[]string{"convert", "--to", "spx", "--top", "0", threads, "-o", out},
			"10001 goroutines: the per-goroutine layout writes at most 10000 reports, one per goroutine (choose the busiest with --top N, or use --layout sequential)\n"},
	} {
		if code, _, errs := runCLI(c.args...); code != exitBad || !strings.HasSuffix(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want it to end %q", c.args, code, errs, c.want)
		}
	}
}
