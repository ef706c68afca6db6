package auto

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/envnames"
)

// TestUploadWithoutUploader checks that PROFILE_UPLOAD in a program that
// imports this package but no uploader (upload/auto) is reported, not
// silently ignored: the README promises a word for every PROFILE_*
// variable that has no effect.
func TestUploadWithoutUploader(t *testing.T) {
	var stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "auto.bin")
	cmd, _ := startChildTo(t, &stderr, "TestHelperProcess", "AUTO_HELPER=exit", "AUTO_BUSY=100ms",
		profiler.EnvOut+"="+out, envnames.Upload+"=http://127.0.0.1:1")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, &stderr)
	}
	want := envnames.Upload + " has no effect: no uploader reads it"
	if n := strings.Count(stderr.String(), want); n != 1 {
		t.Errorf("the child's log says %q %d times, want once:\n%s", want, n, &stderr)
	}
}
