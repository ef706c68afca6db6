package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
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
