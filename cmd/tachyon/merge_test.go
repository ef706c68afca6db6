package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/segtest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// segments writes a profile and its split into three segment files in a
// directory of their own, cut inside the parked goroutine's REPEAT run,
// and returns the profile's path and the directory.
func segments(t *testing.T) (orig, dir string) {
	t.Helper()
	tmp := t.TempDir()
	orig = filepath.Join(tmp, "orig.bin")
	start, end := segtest.Profile(t, orig, tachyon.CompressionZstd)
	dir = filepath.Join(tmp, "segs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	segtest.Split(t, orig, dir, []uint64{start + (end-start)/3 + 5_000, start + (end-start)*2/3}, tachyon.CompressionZstd)
	return orig, dir
}

// TestMergeCommand merges a directory of segments and checks the samples,
// the compression and the reference validator's verdict.
func TestMergeCommand(t *testing.T) {
	orig, dir := segments(t)
	out := filepath.Join(t.TempDir(), "merged.bin")
	code, stdout, errs := runCLI("merge", "-o", out, dir)
	if code != exitOK || !strings.Contains(stdout, "from 3 files") {
		t.Fatalf("merge: exit %d, %q %q", code, stdout, errs)
	}
	segtest.Equal(t, out, orig)
	code, stdout, _ = runCLI("info", out)
	if code != exitOK || !strings.Contains(stdout, "compression:   zstd") {
		t.Errorf("merged info: exit %d\n%s", code, stdout)
	}
	raw := filepath.Join(t.TempDir(), "raw.bin")
	segs, _ := filepath.Glob(filepath.Join(dir, "*.tachyon"))
	if code, _, errs := runCLI(append([]string{"merge", "--compression", "none", "-o", raw}, segs...)...); code != exitOK {
		t.Fatalf("merge --compression none: exit %d %s", code, errs)
	}
	segtest.Equal(t, raw, orig)
	if _, stdout, _ = runCLI("info", raw); !strings.Contains(stdout, "compression:   none") {
		t.Errorf("--compression none wrote\n%s", stdout)
	}
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	for _, p := range []string{out, raw} {
		if b, err := exec.Command(py, ref, "validate", p).CombinedOutput(); err != nil {
			t.Errorf("reference validator rejects %s: %v\n%s", filepath.Base(p), err, b)
		}
	}
}

// TestMultiReadingCommands runs the reading commands on the directory of
// segments, and on the segment files, against the original profile.
func TestMultiReadingCommands(t *testing.T) {
	orig, dir := segments(t)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.tachyon"))
	_, want, _ := runCLI("collapsed", orig)
	for _, args := range [][]string{{dir}, segs} {
		code, got, errs := runCLI(append([]string{"collapsed"}, args...)...)
		if code != exitOK || got != want {
			t.Errorf("collapsed %v: exit %d (%s), output differs from the profile's", args, code, errs)
		}
	}
	code, stdout, _ := runCLI("verify", dir)
	if code != exitOK || strings.Count(stdout, ": ok\n") != 3 {
		t.Errorf("verify DIR: exit %d\n%s", code, stdout)
	}
	tmp := t.TempDir()
	html := filepath.Join(tmp, "r.html")
	if code, _, errs := runCLI("report", dir, "-o", html); code != exitOK {
		t.Errorf("report DIR: exit %d %s", code, errs)
	} else if b, _ := os.ReadFile(html); !bytes.Contains(b, []byte("Tachyon profile segs")) {
		t.Errorf("report DIR: no title naming the directory")
	}
	pb := filepath.Join(tmp, "p.pb.gz")
	if code, _, errs := runCLI("convert", "--to", "pprof", dir, "-o", pb); code != exitOK {
		t.Errorf("convert --to pprof DIR: exit %d %s", code, errs)
	} else if b, _ := os.ReadFile(pb); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("convert --to pprof DIR: not gzip")
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "tachyon-merge-*")); len(left) > 0 {
		t.Logf("temporary files present (maybe another test's): %v", left)
	}
}

// TestMultiInfo checks info's totals and tally over a directory against
// the profile's own.
func TestMultiInfo(t *testing.T) {
	orig, dir := segments(t)
	_, one, _ := runCLI("info", orig)
	code, many, errs := runCLI("info", dir)
	if code != exitOK {
		t.Fatalf("info DIR: exit %d %s", code, errs)
	}
	if strings.Count(many, "\nfile:") != 2 || !strings.HasPrefix(many, "file:") {
		t.Errorf("info DIR does not print the facts of the 3 files:\n%s", many)
	}
	_, totals, ok := strings.Cut(many, "total:         3 files")
	if !ok {
		t.Fatalf("info DIR: no totals\n%s", many)
	}
	for _, k := range []string{"samples:", "threads:", "frames:", "start time:", "interval:", "duration:"} {
		if value(line(totals, k)) != value(line(one, k)) {
			t.Errorf("total %q, want %q", line(totals, k), line(one, k))
		}
	}
	if tallyText(totals) != tallyText(one) {
		t.Errorf("info DIR tally:\n%s\nwant\n%s", tallyText(totals), tallyText(one))
	}
}

// line returns the first line of s that starts with key.
func line(s, key string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, key) {
			return l
		}
	}
	return ""
}

// value returns the value of an info line: its first word after the key.
func value(line string) string {
	_, v, _ := strings.Cut(line, ":")
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// tallyText returns what info prints after the format facts.
func tallyText(s string) string {
	_, rest, _ := strings.Cut(s, "\nduration:")
	_, rest, _ = strings.Cut(rest, "\n")
	if i := strings.Index(rest, "samples by:"); i >= 0 {
		_, rest, _ = strings.Cut(rest[i:], "\n")
	}
	return rest
}

// TestMergeErrors checks the inputs merge refuses, with exit 1 and a
// message naming the file, and that a failed merge leaves no output.
func TestMergeErrors(t *testing.T) {
	_, dir := segments(t)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.tachyon"))
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other.tachyon")
	segtest.ProfileInterval(t, other, tachyon.CompressionNone, 20_000)
	empty := filepath.Join(tmp, "empty")
	junkDir := filepath.Join(tmp, "junk")
	for _, d := range []string{empty, junkDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	junk := filepath.Join(junkDir, "a.tachyon")
	if err := os.WriteFile(junk, []byte("no profile here, just text that is long enough for a header or two, really........."), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.bin")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"interval", []string{segs[0], other}, []string{other, "interval"}},
		{"backwards", []string{segs[1], segs[0]}, []string{segs[0], "different runs"}},
		{"empty dir", []string{empty}, []string{empty, "it is a directory without *.tachyon files"}},
		{"junk", []string{junkDir}, []string{junk}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"merge", "-o", out}, {"collapsed"}, {"info"}} {
				code, stdout, errs := runCLI(append(cmd, c.args...)...)
				if code != exitBad || (cmd[0] != "info" && stdout != "") {
					t.Errorf("%s: exit %d, stdout %q; want 1", cmd[0], code, stdout)
				}
				for _, w := range c.want {
					if !strings.Contains(errs, w) {
						t.Errorf("%s: stderr %q does not say %q", cmd[0], errs, w)
					}
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed merge left %s", out)
			}
		})
	}
	if code, _, errs := runCLI("merge", "-o", segs[0], dir); code != exitUsage || !strings.Contains(errs, "is the input") {
		t.Errorf("merge -o INPUT: exit %d %q", code, errs)
	}
	if code, _, errs := runCLI("merge", dir); code != exitUsage || !strings.Contains(errs, "needs -o OUT") {
		t.Errorf("merge without -o: exit %d %q", code, errs)
	}
}
