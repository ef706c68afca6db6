package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

const kept = "the output as it was before the command\n"

// existing writes kept to a new file in dir and returns its path.
func existing(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(kept), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

// assertKept checks that path still holds kept and that dir holds only
// the names listed (no temporary file is left beside the output).
func assertKept(t *testing.T, path, dir string, names ...string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != kept {
		t.Errorf("%s now holds %d bytes %.60q (%v), want it as it was", path, len(b), b, err)
	}
	assertNames(t, dir, names...)
}

func assertNames(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// corruptLast copies the segments of dir to a new directory, with the
// middle of the last one's sample region overwritten, and returns it.
func corruptLast(t *testing.T, dir string) string {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.tachyon"))
	bad := filepath.Join(t.TempDir(), "segs")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range segs {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if i == len(segs)-1 {
			f, err := reader.NewFileBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			off, n := f.SampleRegion()
			copy(b[off+n/4:off+n*3/4], bytes.Repeat([]byte{0xff}, int(n)))
		}
		if err := os.WriteFile(filepath.Join(bad, filepath.Base(s)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bad
}

// TestFailedMergeKeepsOutput: a merge that fails, for a bad header or for
// the last input's corrupt sample region, exits 1 and leaves an existing
// -o byte-identical with nothing beside it, and a new -o absent, so that
// verify accepts nothing it wrote.
func TestFailedMergeKeepsOutput(t *testing.T) {
	_, good := segments(t)
	bad := corruptLast(t, good)
	junk := filepath.Join(t.TempDir(), "junk.tachyon")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not a profile "), 20), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{"corrupt last samples": {bad}, "bad header": {good, junk}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := existing(t, dir, "out.bin")
			code, _, errs := runCLI(append([]string{"merge", "-o", out}, args...)...)
			if code != exitBad {
				t.Errorf("merge over an existing file: exit %d, %q; want 1", code, errs)
			}
			assertKept(t, out, dir, "out.bin")
			fresh := filepath.Join(dir, "new.bin")
			if code, _, errs := runCLI(append([]string{"merge", "-o", fresh}, args...)...); code != exitBad {
				t.Errorf("merge to a new file: exit %d, %q; want 1", code, errs)
			}
			if code, stdout, _ := runCLI("verify", fresh); code == exitOK {
				t.Errorf("verify accepts what the failed merge left: %q", stdout)
			}
			assertNames(t, dir, "out.bin")
		})
	}
}

// TestFailedWriteKeepsOutput: a convert or an encode that fails after it
// has begun to write leaves an existing -o byte-identical, also through a
// symbolic link, which stays a link.
func TestFailedWriteKeepsOutput(t *testing.T) {
	src := t.TempDir()
	in := filepath.Join(src, "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	backward := filepath.Join(src, "in.jsonl")
	stack := `"status": 0, "stack": [["a.go", "f", 1]]}` + "\n"
	if err := os.WriteFile(backward, []byte(`{"meta": {"start_time_us": 100, "interval_us": 10}}`+"\n"+
		`{"thread_id": 1, "interpreter_id": 0, "timestamp_us": 120, `+stack+
		`{"thread_id": 1, "interpreter_id": 0, "timestamp_us": 110, `+stack), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := existing(t, dir, "out")
	link := filepath.Join(dir, "link")
	if err := os.Symlink("out", link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "--to", "pprof", "--max-stack-frames", "1", in, "-o", out},
		{"convert", "--to", "pprof", "--max-stack-frames", "1", in, "-o", link},
		{"encode", backward, out},
		{"encode", backward, link},
	} {
		if code, _, errs := runCLI(args...); code != exitBad {
			t.Errorf("%q: exit %d, %q; want 1", args, code, errs)
		}
		assertKept(t, out, dir, "link", "out")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", fi, err)
	}
}

// TestOutputReplaced: a command that succeeds replaces -o whole: a file
// keeps its mode, a link stays a link to the new contents, a link to
// nothing is refused, and a FIFO is written directly and kept.
func TestOutputReplaced(t *testing.T) {
	_, segs := segments(t)
	dir := t.TempDir()
	out := existing(t, dir, "out.bin")
	if code, _, errs := runCLI("merge", "-o", out, segs); code != exitOK {
		t.Fatalf("merge: exit %d %q", code, errs)
	}
	if code, stdout, _ := runCLI("verify", out); code != exitOK {
		t.Errorf("verify the merged output: %q", stdout)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the output's mode is now %v (%v), want -rw-r-----", fi.Mode(), err)
	}
	target := existing(t, dir, "target.bin")
	link := filepath.Join(dir, "link.bin")
	if err := os.Symlink("target.bin", link); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("merge", "-o", link, segs); code != exitOK {
		t.Fatalf("merge -o link: exit %d %q", code, errs)
	}
	if code, stdout, _ := runCLI("verify", target); code != exitOK {
		t.Errorf("verify the link's target: %q", stdout)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", fi, err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("merge", "-o", dangling, segs); code != exitBad || !strings.Contains(errs, "symbolic link to a file that does not exist") {
		t.Errorf("merge -o dangling link: exit %d %q", code, errs)
	}
	assertNames(t, dir, "dangling", "link.bin", "out.bin", "target.bin")

	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		read <- b
	}()
	files, _ := filepath.Glob(filepath.Join(segs, "*.tachyon"))
	code, _, errs := runCLI("convert", "--to", "speedscope", files[0], "-o", fifo)
	// Should the command not have opened the FIFO, its reader still waits.
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	if b := <-read; code != exitOK || !bytes.HasPrefix(b, []byte("{")) {
		t.Errorf("convert to a FIFO: exit %d %q, the reader got %.40q", code, errs, b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi, err)
	}
}

// TestFailedSPXAddsNothing: an SPX export that fails at its second report
// (a directory stands where its metadata file goes) adds none of its
// reports to the directory -o.
func TestFailedSPXAddsNothing(t *testing.T) {
	in := testutil.Vectors(t, "tachyon", "threads_8.bin")
	args := []string{"convert", "--to", "spx", "--top", "2", "--host", "h", "--pid", "9", in, "-o"}
	code, stdout, errs := runCLI(append(args, t.TempDir())...)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("convert: exit %d, %q %q", code, stdout, errs)
	}
	second, _, _ := strings.Cut(filepath.Base(lines[1]), ":")
	out := filepath.Join(t.TempDir(), "spx")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	existing(t, out, "keep.txt")
	if err := os.Mkdir(filepath.Join(out, second+".json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, stdout, errs := runCLI(append(args, out)...); code != exitBad {
		t.Errorf("convert over a blocked report: exit %d, %q %q; want 1", code, stdout, errs)
	}
	assertKept(t, filepath.Join(out, "keep.txt"), out, "keep.txt", second+".json")
	assertNames(t, filepath.Dir(out), "spx")
}

// TestOutputPermissionsAndDescriptors: a file the user may not write is
// not replaced (as a shell's > fails on it); an output named through an
// open descriptor (/proc/self/fd/N, as /dev/stdout is) is written
// directly, even a regular file: the descriptor's file keeps its identity.
func TestOutputPermissionsAndDescriptors(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ro := existing(t, dir, "ro.json")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root may write any file
		if code, _, errs := runCLI("convert", "--to", "speedscope", in, "-o", ro); code != exitBad || !strings.Contains(errs, "permission denied") {
			t.Errorf("convert over a read-only file: exit %d %q; want 1, permission denied", code, errs)
		}
		assertKept(t, ro, dir, "ro.json")
	}
	if runtime.GOOS != "linux" {
		return
	}
	f, err := os.Create(filepath.Join(dir, "fd.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := f.Stat()
	if code, _, errs := runCLI("convert", "--to", "speedscope", in, "-o", "/proc/self/fd/"+strconv.Itoa(int(f.Fd()))); code != exitOK {
		t.Fatalf("convert to /proc/self/fd/N: exit %d %q", code, errs)
	}
	after, err := os.Stat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || after.Size() == 0 {
		t.Errorf("the descriptor's file: same file %v, %d bytes; want the same file, written", os.SameFile(before, after), after.Size())
	}
	assertNames(t, dir, "fd.json", "ro.json")
}
