package auto

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/auto"
)

// TestUploadReadNoWarning checks that package auto's word on a
// PROFILE_UPLOAD that no uploader reads is not said when this package,
// whose init comes after auto's, reads it.
func TestUploadReadNoWarning(t *testing.T) {
	if os.Getenv("UPLOAD_READ_CHILD") != "" {
		time.Sleep(1500 * time.Millisecond) // the first segment ends after a second
		auto.Stop()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUploadReadNoWarning$")
	cmd.Env = append(os.Environ(), "UPLOAD_READ_CHILD=1", "PROFILE_OUT="+filepath.Join(t.TempDir(), "p"),
		"PROFILE_SEGMENT=300ms", "PROFILE_UPLOAD=http://127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "profiler: upload: ") {
		t.Errorf("the child logged no upload counters:\n%s", out)
	}
	if strings.Contains(string(out), "has no effect") {
		t.Errorf("the child says an upload variable has no effect:\n%s", out)
	}
}
