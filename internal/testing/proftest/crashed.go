package proftest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/reader"
)

// Left is what a run that did not stop left of its profile: the finished
// checkpoints in a checkpoint directory, merged.
type Left struct {
	Files   int           // finished checkpoint files
	Samples uint32        // samples in them
	Span    time.Duration // from the run's start to its latest sample
}

// ValidateLeft merges the finished *.tachyon files in dir (a profile's
// PartDir) into a temporary file, validates it as Validate does and
// returns what it holds. A dir with no finished file gives the zero Left.
func ValidateLeft(t testing.TB, dir string) Left {
	t.Helper()
	if done, _ := filepath.Glob(filepath.Join(dir, "*.tachyon")); len(done) == 0 {
		return Left{}
	}
	files, err := merge.Expand([]string{dir})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	out := filepath.Join(t.TempDir(), "left.tachyon")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := merge.Merge(f, files, merge.Options{}); err != nil {
		t.Fatalf("merging the checkpoints in %s: %v", dir, err)
	}
	f.Close()
	left := Left{Files: len(files), Samples: Validate(t, out)}
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
