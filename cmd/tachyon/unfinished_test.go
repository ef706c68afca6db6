package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/checkpoint"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestUnfinishedReadsCheckpoints: a profile whose process ended without
// Stop is missing, and its checkpoint directory holds a finished file and
// the open one; info, verify and collapsed read the finished checkpoints
// under the profile's name, with a note, and a profile that exists is read
// as it is.
func TestUnfinishedReadsCheckpoints(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	done := filepath.Join(part, "profile-20261123T104945.053Z-000001.tachyon")
	if err := os.WriteFile(done, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, "profile-20261123T104950.053Z-000002.tachyon.part"), make([]byte, 64), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"info", out}, {"verify", out}, {"collapsed", out}} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || !strings.Contains(stderr, "was never finished") || stdout == "" {
			t.Errorf("tachyon %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if code, _, _ := runCLI("info", filepath.Join(dir, "other.bin")); code == exitOK {
		t.Error("info of a missing file with no checkpoints succeeded")
	}
}

// TestUnfinishedBesideFinished: a profile that exists beside the
// checkpoint directory of a later run that did not finish is read as it
// is, with a note naming the directory, so that the later run's samples
// are not mistaken for missing; and a name that is not plain is quoted in
// the notes, as everywhere else.
func TestUnfinishedBesideFinished(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	odd := filepath.Join(dir, "odd\nx.bin: ok")
	for _, p := range []string{out, odd} {
		if err := os.Mkdir(profiler.PartDir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(profiler.PartDir(p), "profile-20261123T104945.053Z-000001.tachyon"), proftest.AllStatusesBytes(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(out, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("info", out)
	if code != exitOK || !strings.Contains(stdout, "file:          "+out+"\n") || !strings.Contains(stderr, profiler.PartDir(out)+" holds the checkpoints of a later run") {
		t.Errorf("info of a finished profile beside checkpoints: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCLI("verify", odd)
	if code != exitOK || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, strconv.Quote(odd)+" was never finished") {
		t.Errorf("verify of an unfinished profile with a line break in its name: exit %d, stderr %q", code, stderr)
	}
}

// TestUnfinishedReadsStream: a run that died after a checkpoint left its
// stream and mark: info, verify and collapsed read the profile as of that
// checkpoint under the profile's name, and remove the copy they read.
func TestUnfinishedReadsStream(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoint.New(checkpoint.Options{Dir: part, Writer: writer.Options{StartTime: 1_000_000, Interval: 10_000}, Period: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Abort()
	main := ck.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 3})
	for i := range 100 {
		ck.Thread(1, 0).Write(uint64(1_000_000+i*10_000), tachyon.StatusOnCPU, []uint32{main})
	}
	ck.Watermark(0) // the first checkpoint is due at once
	for end := time.Now().Add(10 * time.Second); ck.Stats().Written < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no checkpoint written")
		}
	}
	tmp := os.TempDir()
	before, _ := filepath.Glob(filepath.Join(tmp, "tachyon-unfinished-*"))
	for _, args := range [][]string{{"info", out}, {"verify", out}, {"collapsed", out}} {
		code, stdout, stderr := runCLI(args...)
		if code != exitOK || !strings.Contains(stderr, "as of its last checkpoint") || stdout == "" {
			t.Errorf("tachyon %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if args[0] == "collapsed" && !strings.Contains(stdout, "main.main:3 100") {
			t.Errorf("collapsed: %q, want main.main's 100 samples", stdout)
		}
		if strings.Contains(stdout+stderr, "tachyon-unfinished-") || args[0] != "collapsed" && !strings.Contains(stdout, out) {
			t.Errorf("tachyon %q names the copy it read, not %s: stdout %q, stderr %q", args, out, stdout, stderr)
		}
	}
	if after, _ := filepath.Glob(filepath.Join(tmp, "tachyon-unfinished-*")); len(after) > len(before) {
		t.Errorf("the copies read are left behind: %v", after)
	}
}

// TestUnfinishedLiveRun: the checkpoints of a run that is still going (its
// directory locked, as a live profiler holds it) are read with a note that
// does not say the process ended: reading a running service's profile is
// the common case, and "ended without Stop" would report a crash that did
// not happen.
func TestUnfinishedLiveRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := runlock.AcquireDir(part)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	done := filepath.Join(part, "profile-20261123T104945.053Z-000001.tachyon")
	if err := os.WriteFile(done, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("info", out)
	if code != exitOK || !strings.Contains(stderr, "still running") {
		t.Errorf("tachyon info of a live run: exit %d, stderr %q", code, stderr)
	}
}
