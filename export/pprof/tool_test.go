package pprof

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// pprofTool returns the path of the pprof binary that "go tool pprof" runs.
// The tests that run it skip under -short.
func pprofTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	return testutil.PprofTool(t)
}

// runPprof runs the pprof tool with args and returns its standard output.
func runPprof(t *testing.T, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pprof %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

var rawSample = regexp.MustCompile(`^\s+(\d+)\s+(\d+)(?:\s+\d+)*:`)

// rawTotals sums the first two values (samples and wall or cpu) of every
// sample that "pprof -raw" prints.
func rawTotals(t *testing.T, raw string) (count, ns int64) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	inSamples := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Samples:") {
			inSamples = true
			continue
		}
		if strings.HasPrefix(line, "Locations") {
			break
		}
		if m := rawSample.FindStringSubmatch(line); inSamples && m != nil {
			c, _ := strconv.ParseInt(m[1], 10, 64)
			n, _ := strconv.ParseInt(m[2], 10, 64)
			count += c
			ns += n
		}
	}
	return count, ns
}

// stateCounts counts f's samples per state, read independently of the
// exporter.
func stateCounts(t *testing.T, f *reader.File) (byState [tachyon.NumStates]int64) {
	t.Helper()
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		byState[it.Sample().Status.State()]++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return byState
}

// exports lists the profiles every export must survive: the public
// vectors and the committed demo profiles.
func exports(t *testing.T) []string {
	dir := testutil.Vectors(t, "tachyon")
	files, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	demo, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	files = append(files, demo...)
	if len(files) == 0 {
		t.Fatalf("no profiles in %s", dir)
	}
	return files
}

// TestGoToolPprof exports every public vector and demo profile and checks
// with the real "go tool pprof" that it parses, that its totals are the
// Tachyon sample count and count × interval, and that the state label
// filters select exactly the samples in that state.
func TestGoToolPprof(t *testing.T) {
	tool := pprofTool(t)
	for _, in := range exports(t) {
		name := filepath.Base(in)
		if strings.HasSuffix(name, ".zstd.bin") && !strings.Contains(in, "demo") {
			continue // same samples as NAME.bin; the reader tests cover zstd
		}
		t.Run(name, func(t *testing.T) {
			f := proftest.Open(t, in)
			if err := f.Verify(); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.pb.gz")
			o, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(o, f, Options{}); err != nil {
				t.Fatal(err)
			}
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			n := int64(f.Header.SampleCount)
			period := int64(f.Header.Interval) * 1000
			count, ns := rawTotals(t, runPprof(t, tool, "-raw", out))
			if count != n || ns != n*period {
				t.Errorf("pprof -raw totals: %d samples, %d ns; want %d, %d", count, ns, n, n*period)
			}
			top := runPprof(t, tool, "-top", "-sample_index=samples", out)
			if n > 0 && !strings.Contains(top, "of "+strconv.FormatInt(n, 10)+" total") {
				t.Errorf("pprof -top does not show %d samples in total:\n%.600s", n, top)
			}
			byState := stateCounts(t, f)
			for st := range tachyon.State(tachyon.NumStates) {
				want := byState[st]
				if want == 0 {
					continue
				}
				tag := "state=^" + st.String() + "$"
				c, _ := rawTotals(t, runPprof(t, tool, "-raw", "-tagfocus", tag, out))
				if c != want {
					t.Errorf("-tagfocus %s: %d samples, want %d", tag, c, want)
				}
				c, _ = rawTotals(t, runPprof(t, tool, "-raw", "-tagignore", tag, out))
				if c != n-want {
					t.Errorf("-tagignore %s: %d samples, want %d", tag, c, n-want)
				}
			}
		})
	}
}

// TestGoToolPprofLabels checks the goroutine and wait_reason labels with
// the real tool on a Go-sampler-like profile.
func TestGoToolPprofLabels(t *testing.T) {
	tool := pprofTool(t)
	f := proftest.Open(t, writeProfile(t, goSamples()))
	out := filepath.Join(t.TempDir(), "go.pb.gz")
	var b bytes.Buffer
	if err := Write(&b, f, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		count int64
	}{
		{[]string{"-tagfocus", "wait_reason=chan receive"}, 4},
		{[]string{"-tagfocus", "goroutine=^7$"}, 5},
		{[]string{"-tagfocus", "state=blocked"}, 5},
		{[]string{"-tagignore", "state=blocked"}, 9},
		{[]string{"-tagfocus", "state=running,syscall"}, 5},
	} {
		got, _ := rawTotals(t, runPprof(t, tool, append(append([]string{"-raw"}, c.args...), out)...))
		if got != c.count {
			t.Errorf("%v: %d samples, want %d", c.args, got, c.count)
		}
	}
	// Blocked goroutines have wall time but no on_cpu time, the default.
	top := runPprof(t, tool, "-top", "-sample_index=wall", "-tagfocus", "state=blocked", out)
	if !strings.Contains(top, "main.(*Queue).Pop") || strings.Contains(top, "main.work") || strings.Contains(top, "chan receive") {
		t.Errorf("-top -sample_index=wall -tagfocus state=blocked:\n%s", top)
	}
	if top := runPprof(t, tool, "-top", "-tagfocus", "state=blocked", out); !strings.Contains(top, "Type: on_cpu") || strings.Contains(top, "main.(*Queue).Pop") {
		t.Errorf("-top -tagfocus state=blocked shows on_cpu time of blocked goroutines:\n%s", top)
	}
}
