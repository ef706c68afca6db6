package profiler_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestOrphanedAsideRecovered: a run that set a dead run's checkpoints
// aside and ended before it had recovered them (it exited within
// milliseconds, or was killed) leaves PATH.part-crashed-STAMP and the
// temporary file of the recovery; the next run recovers that directory
// into prof-crashed-STAMP.bin and removes what the interrupted recovery
// left.
func TestOrphanedAsideRecovered(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	const stamp = "20261123T104500Z"
	aside := profiler.PartDir(out) + "-crashed-" + stamp
	if err := os.Mkdir(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	ck := deadStream(t, aside, 200, 50)
	defer ck.Abort()
	os.WriteFile(filepath.Join(aside, "lock"), nil, 0o644) // not held
	tmp := filepath.Join(dir, ".prof-crashed-"+stamp+".bin.tmp-12345")
	os.WriteFile(tmp, []byte("half a recovery"), 0o644)

	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true))
	defer p.Stop()
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "prof-crashed-"+stamp+".bin")
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(aside); err != nil {
			break
		}
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); err != nil {
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Fatalf("the orphaned checkpoints were not recovered: %v; the directory holds %v", err, left)
	}
	if n := proftest.Validate(t, want); n != 200 {
		t.Errorf("the recovered profile has %d samples, want 200", n)
	}
	if _, err := os.Lstat(aside); err == nil {
		t.Errorf("%s is left", aside)
	}
	if _, err := os.Lstat(tmp); err == nil {
		t.Errorf("%s is left", tmp)
	}
}

// TestHeldAsideLeftAlone: a set-aside directory whose lock a live
// process holds (it is recovering it) is not touched.
func TestHeldAsideLeftAlone(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	aside := profiler.PartDir(out) + "-crashed-20261123T104500Z"
	if err := os.Mkdir(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	ck := deadStream(t, aside, 200, 50)
	defer ck.Abort()
	l, err := runlock.AcquireDir(aside)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true))
	time.Sleep(300 * time.Millisecond)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(aside, "checkpoint")); err != nil {
		t.Errorf("a held directory was touched: %v", err)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "prof-crashed-*")); len(got) != 0 {
		t.Errorf("recovered %v from a held directory", got)
	}
}

// TestMarkWithoutStreamRemoved: a run killed within its Stop, after the
// stream was renamed over the output and before the checkpoint directory
// was removed, leaves the mark and the lock alone; the next run removes
// them quietly, and keeps nothing aside.
func TestMarkWithoutStreamRemoved(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prof.bin")
	part := profiler.PartDir(out)
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	ck := deadStream(t, part, 200, 50)
	defer ck.Abort()
	os.Remove(filepath.Join(part, "profile.tachyon.part")) // renamed into place by Stop
	os.WriteFile(filepath.Join(part, "lock"), nil, 0o644)
	p := profiler.Start(profiler.WithPath(out), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	var aside []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if aside, _ = filepath.Glob(part + "-crashed-*"); len(aside) == 0 {
			break
		}
	}
	p.Stop()
	if len(aside) != 0 {
		t.Errorf("%v left", aside)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "prof-crashed-*")); len(got) != 0 {
		t.Errorf("recovered %v from a directory with no stream", got)
	}
}
