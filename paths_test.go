package profiler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/checkpoint"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestOutputPathsNotOurs: a FIFO, a symbolic link to a device (as
// /dev/stdout is) and a symbolic link to the app's own file, given as the
// output, are refused with a message that names them, and are left exactly
// as they were (issue 25 item 3).
func TestOutputPathsNotOurs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := filepath.Join(dir, "stdout")
	if err := os.Symlink("/dev/null", stdout); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "app.conf")
	if err := os.WriteFile(conf, []byte("key = value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "prof.bin")
	if err := os.Symlink(conf, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "named pipe"},
		{stdout, "symbolic link"},
		{link, "symbolic link"},
		{dir, "directory"},
	} {
		before, _ := os.Lstat(c.path)
		p := profiler.Start(profiler.WithPath(c.path), profiler.WithQuiet(true))
		err := p.Err()
		p.Stop()
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Start: %v; want a refusal naming it and %q", c.path, err, c.want)
		}
		after, lerr := os.Lstat(c.path)
		if lerr != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s was changed: %v, %v", c.path, after, lerr)
		}
		if _, err := os.Lstat(profiler.PartDir(c.path)); err == nil {
			t.Errorf("%s: a checkpoint directory was left", c.path)
		}
	}
	// A new path that ends in a separator names a directory: it is not
	// written as a file of that name.
	slash := filepath.Join(dir, "new") + "/"
	p := profiler.Start(profiler.WithPath(slash), profiler.WithQuiet(true))
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), slash) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("%s: Start: %v; want a refusal naming it as a directory", slash, err)
	}
	p.Stop()
	if _, err := os.Lstat(filepath.Join(dir, "new")); err == nil {
		t.Errorf("%s was created", slash)
	}
	if b, _ := os.ReadFile(conf); string(b) != "key = value\n" {
		t.Errorf("app.conf behind the link now holds %q", b)
	}
}

// TestOutputReplacedOnlyWhenFinished: an existing file at the output path
// stays as it was while the profile runs, and Stop replaces it with the
// finished profile in one rename, leaving no checkpoint directory.
func TestOutputReplacedOnlyWhenFinished(t *testing.T) {
	out := filepath.Join(t.TempDir(), "prof.bin")
	old := []byte("the previous profile")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true), profiler.WithCheckpoint(200*time.Millisecond))
	defer p.Stop()
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	var left proftest.Left
	for end := time.Now().Add(10 * time.Second); left.Files < 2 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		left = proftest.ValidateLeft(t, profiler.PartDir(out))
	}
	if left.Files < 2 {
		t.Errorf("fewer than two finished checkpoints after 10 s: %+v", left)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, old) {
		t.Errorf("the output changed while the profile ran: %q", b)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := proftest.Validate(t, out); n == 0 {
		t.Error("no samples")
	}
	if _, err := os.Lstat(profiler.PartDir(out)); err == nil {
		t.Error("the checkpoint directory is left after Stop")
	}
}

// TestStaleCheckpointsRecovered: the checkpoints a dead run left are
// merged into a finished file beside the output when the next run starts,
// and the next run writes its own profile as usual.
func TestStaleCheckpointsRecovered(t *testing.T) {
	for _, layout := range []string{"stream", "files"} {
		t.Run(layout, func(t *testing.T) { testStaleRecovered(t, layout) })
	}
}

// testStaleRecovered runs TestStaleCheckpointsRecovered with what a dead
// run left in the layout: "stream" (a stream written on past its last
// checkpoint, and its mark) or "files" (an earlier version's finished
// checkpoint files and its open one).
func testStaleRecovered(t *testing.T, layout string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	want := uint32(0)
	switch layout {
	case "files":
		if err := os.WriteFile(filepath.Join(part, "profile-20261123T104945.053Z-000001.tachyon"), proftest.AllStatusesBytes(t), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(part, "profile-20261123T104950.053Z-000002.tachyon.part"), make([]byte, 64), 0o644); err != nil {
			t.Fatal(err)
		}
	case "stream":
		want = 200
		ck := deadStream(t, part, 200, 50)
		defer ck.Abort() // its goroutine; the files are gone by then
	}
	os.WriteFile(filepath.Join(part, "lock"), nil, 0o644) // not held: its process is dead
	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true))
	defer p.Stop()
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		got, _ = filepath.Glob(filepath.Join(dir, "prof-crashed-*.bin"))
		if aside, _ := filepath.Glob(part + "-crashed-*"); len(got) > 0 && len(aside) == 0 {
			break
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("recovered %v, want one prof-crashed-*.bin", got)
	}
	if n := proftest.Validate(t, got[0]); n == 0 || want != 0 && n != want {
		t.Errorf("the recovered profile has %d samples, want %d (those before the last checkpoint)", n, want)
	}
	proftest.Validate(t, out)
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 2 {
		t.Errorf("the directory holds %v, want the profile and the recovered one", left)
	}
}

// deadStream writes in dir the stream and mark of a run that took a
// checkpoint after n samples and wrote more after it before it died.
func deadStream(t *testing.T, dir string, n, more int) *checkpoint.Writer {
	t.Helper()
	ck, err := checkpoint.New(checkpoint.Options{Dir: dir, Writer: writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd}, Period: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	main := ck.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 3})
	write := func(from, n int) {
		for i := from; i < from+n; i++ {
			ck.Thread(1, 0).Write(uint64(1_000_000+i*10_000), tachyon.StatusOnCPU, []uint32{main})
		}
	}
	write(0, n)
	ck.Watermark(0) // the first checkpoint is due at once
	for end := time.Now().Add(10 * time.Second); ck.Stats().Written < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no checkpoint written")
		}
	}
	write(n, more)
	ck.Thread(1, 0).Flush()
	return ck
}

// TestRelativePathAfterChdir: a relative output path names the file in
// the working directory at Start, even if the program changes it later.
func TestRelativePathAfterChdir(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	p := profiler.Start(profiler.WithPath("prof.bin"), profiler.WithQuiet(true), profiler.WithCheckpoint(200*time.Millisecond))
	defer p.Stop()
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	t.Chdir(elsewhere)
	time.Sleep(time.Second)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if p.Path() != filepath.Join(dir, "prof.bin") {
		t.Errorf("Path %q, want %q", p.Path(), filepath.Join(dir, "prof.bin"))
	}
	proftest.Validate(t, filepath.Join(dir, "prof.bin"))
	if left, _ := filepath.Glob(filepath.Join(elsewhere, "*")); len(left) > 0 {
		t.Errorf("files in the later working directory: %v", left)
	}
}

// TestForeignPartDirUntouched: a directory at the checkpoints' name that
// no profiler run made (it has no lock file) is refused and left as it
// was, with the operator's files in it.
func TestForeignPartDirUntouched(t *testing.T) {
	out := filepath.Join(t.TempDir(), "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(part, "profile-20261123T104945.053Z-000001.tachyon")
	if err := os.WriteFile(mine, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true))
	err := p.Err()
	p.Stop()
	if err == nil || !strings.Contains(err.Error(), part) {
		t.Errorf("Start: %v; want a refusal naming %s", err, part)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the operator's file is gone: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(left) != 1 {
		t.Errorf("the directory holds %v, want only %s", left, part)
	}
}

// TestPartReplacedMidRun: the checkpoint directory moved away and replaced
// by a link to a directory of the user's, whose files have the names the
// profiler uses there, or removed: Stop touches nothing through the path,
// and writes the whole profile from the file it still holds open.
func TestPartReplacedMidRun(t *testing.T) {
	for _, how := range []string{"link", "removed"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "prof.bin")
			user := filepath.Join(dir, "user")
			if err := os.Mkdir(user, 0o755); err != nil {
				t.Fatal(err)
			}
			names := []string{"lock", checkpoint.MarkName, checkpoint.DataName, checkpoint.MarkName + ".tmp", "x.part", "notes.txt"}
			for _, n := range names {
				if err := os.WriteFile(filepath.Join(user, n), []byte("the user's "+n), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true), profiler.WithCheckpoint(200*time.Millisecond))
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			part := profiler.PartDir(out)
			switch how {
			case "link":
				if err := os.Rename(part, filepath.Join(dir, "moved")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(user, part); err != nil {
					t.Fatal(err)
				}
			case "removed":
				if err := os.RemoveAll(part); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(500 * time.Millisecond) // a checkpoint or two after the change
			if err := p.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			proftest.Validate(t, out)
			for _, n := range names {
				if b, err := os.ReadFile(filepath.Join(user, n)); err != nil || string(b) != "the user's "+n {
					t.Errorf("the user's %s: %q, %v", n, b, err)
				}
			}
		})
	}
}
