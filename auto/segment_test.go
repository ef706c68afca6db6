package auto

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/writer"
)

// TestSegmentHelperProcess is the child of TestKillLosesOnlyOpenSegment:
// with AUTO_SEGMENT_HELPER set it keeps a goroutine busy and others
// sleeping until it is killed. In a normal run it does nothing and passes.
func TestSegmentHelperProcess(t *testing.T) {
	if os.Getenv("AUTO_SEGMENT_HELPER") == "" {
		return
	}
	if Profile() == nil {
		os.Stdout.WriteString("not profiling\n")
		os.Exit(3)
	}
	for range 10 {
		go func() {
			for {
				time.Sleep(time.Millisecond)
			}
		}()
	}
	os.Stdout.WriteString("ready\n")
	for x := 0; ; x++ { // busy until killed
		if x < 0 {
			os.Exit(4)
		}
	}
}

// TestKillLosesOnlyOpenSegment profiles a child with 200 ms segments, kills
// it with SIGKILL after about a second, and checks that every complete
// segment (*.tachyon) verifies, with the reader tachyon verify uses and the
// reference validator: a kill -9 loses at most the open segment,
// left as a .part file.
func TestKillLosesOnlyOpenSegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "segs")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSegmentHelperProcess$")
	cmd.Env = append(os.Environ(), "AUTO_SEGMENT_HELPER=1", profiler.EnvOut+"="+dir, profiler.EnvSegment+"=200ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	done, _ := filepath.Glob(filepath.Join(dir, "*"+writer.SegmentExt))
	open, _ := filepath.Glob(filepath.Join(dir, "*"+writer.SegmentExt+writer.PartExt))
	if len(done) == 0 || len(open) > 1 {
		t.Fatalf("%d complete segments, %d open ones", len(done), len(open))
	}
	var samples uint32
	for _, p := range done {
		samples += proftest.Validate(t, p)
	}
	if samples == 0 {
		t.Error("no samples in the complete segments")
	}
	t.Logf("%d complete segments, %d samples, %d open", len(done), samples, len(open))
}
