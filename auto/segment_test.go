package auto

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/segment"
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
// it with SIGKILL once it has finished two segments (samples are written a
// generation of the trace at a time, so how soon depends on the machine's
// load, not on the period alone), and checks that every complete
// segment (*.tachyon) verifies, with the reader tachyon verify uses and the
// reference validator: a kill -9 loses at most the open segments (up to
// segment.MaxOpen and the first one's sequel, while the sampler's late
// ticks may still come), left as .part files.
func TestKillLosesOnlyOpenSegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "segs")
	cmd, _ := startChild(t, "TestSegmentHelperProcess", "AUTO_SEGMENT_HELPER=1", profiler.EnvOut+"="+dir, profiler.EnvSegment+"=200ms")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if done, _ := filepath.Glob(filepath.Join(dir, "*"+segment.Ext)); len(done) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child finished no two segments in a minute")
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	done, _ := filepath.Glob(filepath.Join(dir, "*"+segment.Ext))
	open, _ := filepath.Glob(filepath.Join(dir, "*"+segment.Ext+segment.PartExt))
	if len(done) == 0 || len(open) > segment.MaxOpen+1 {
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
