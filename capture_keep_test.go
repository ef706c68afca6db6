package profiler

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/segment"
)

// TestPruneCaptures: a capture directory keeps the newest captures only,
// and never deletes a file that is not a capture's, whatever its name
// resembles: one named as a capture but not a Tachyon file stays too.
func TestPruneCaptures(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	profile := proftest.AllStatusesBytes(t)
	var want []string
	for i := range 25 {
		name := captureName(at.Add(time.Duration(i)*time.Second), "slow")
		if i >= 5 {
			want = append(want, name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), profile, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	foreign := []string{"capture-notes.txt", "capture-latest.tachyon", "capture-20261124T115959.000Z-x-1.tachyon.part", "seg.tachyon",
		captureName(at.Add(-2*time.Hour), "notes")}
	for _, n := range foreign {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("the user's own notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, captureName(at.Add(-time.Hour), "dir")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := pruneCaptures(dir, 20); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want = append(want, foreign...)
	want = append(want, captureName(at.Add(-time.Hour), "dir"))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("left %v\nwant %v", got, want)
	}
}

// TestIsCaptureName tells the names captureName and createCapture give
// from others.
func TestIsCaptureName(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	for name, want := range map[string]bool{
		captureName(at, "slow"): true,
		fmt.Sprintf("capture-20260102T030405.006Z-slow-%d-2.tachyon", os.Getpid()): true,
		"capture-20260102T030405Z-slow-1.tachyon":                                  false,
		"capture-2026010xT030405.006Z-slow-1.tachyon":                              false,
		"capture-20260102T030405.006Z-slow-1.tachyon.x":                            false,
		"seg-20260102T030405.006Z.tachyon":                                         false,
	} {
		if got := isCaptureName(name); got != want {
			t.Errorf("isCaptureName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPruneStaleCaptureParts: the open file of a capture that a dead run
// left (no process holds it, and it is empty, as a run killed while it
// waited for the capture's samples leaves it) is deleted; one a live run
// holds, and one younger than runlock.MinAge, are not.
func TestPruneStaleCaptureParts(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	old := time.Now().Add(-2 * runlock.MinAge)
	dead := filepath.Join(dir, captureName(at, "dead")+segment.PartExt)
	young := filepath.Join(dir, captureName(at, "young")+segment.PartExt)
	for _, p := range []string{dead, young} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held, final, err := createCapture(dir, at, "held")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, p := range []string{dead, held.Name()} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := pruneCaptures(dir, 20); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dead); err == nil {
		t.Errorf("%s, a dead run's, was kept", filepath.Base(dead))
	}
	for _, p := range []string{young, final + segment.PartExt} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was deleted: %v", filepath.Base(p), err)
		}
	}
}
