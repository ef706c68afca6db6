package proftest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/checkpoint"
	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/reader"
)

// Left is what a run that did not stop left of its profile: its stream
// up to the last checkpoint, or an earlier version's finished checkpoint
// files, merged.
type Left struct {
	Files   int           // checkpoints taken (files, of an earlier version)
	Samples uint32        // samples in them
	Span    time.Duration // from the run's start to its latest sample
}

// ValidateLeft finishes what a run left in dir (a profile's PartDir) into
// a temporary file, validates it as Validate does and returns what it
// holds. A dir with no checkpoint yet gives the zero Left.
func ValidateLeft(t testing.TB, dir string) Left {
	t.Helper()
	out := filepath.Join(t.TempDir(), "left.tachyon")
	var left Left
	if checkpoint.Present(dir) {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := checkpoint.Finish(dir, f)
		f.Close()
		if errors.Is(err, checkpoint.ErrNoCheckpoint) {
			return Left{}
		}
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		left.Files = int(got.Seq)
	} else {
		if done, _ := filepath.Glob(filepath.Join(dir, "*.tachyon")); len(done) == 0 {
			return Left{}
		}
		files, err := merge.Expand([]string{dir})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := merge.Merge(f, files, merge.Options{}); err != nil {
			t.Fatalf("merging the checkpoints in %s: %v", dir, err)
		}
		f.Close()
		left.Files = len(files)
	}
	left.Samples = Validate(t, out)
	rf, err := reader.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	var last uint64
	it := rf.Samples()
	for it.Next() {
		last = max(last, it.Sample().Timestamp)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if last > rf.Header.StartTime {
		left.Span = time.Duration(last-rf.Header.StartTime) * time.Microsecond
	}
	return left
}
