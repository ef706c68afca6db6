package auto

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/hostilestore"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestEndlessStoreProcess runs this test binary as a child that profiles
// itself in 300 ms segments with PROFILE_UPLOAD at a store whose answers
// never end, the wiring of the blank import, and watches its resident
// memory: it grows by at most rssMargin over 3 s of failed pushes, and the
// child logs the failure and exits 0. The child is killed if it passes the
// margin.
func TestEndlessStoreProcess(t *testing.T) {
	if os.Getenv("UPLOAD_TEST_CHILD") != "" {
		fmt.Println("ready")
		time.Sleep(3 * time.Second)
		return
	}
	const rssMargin = 64 << 20
	addr, _ := hostilestore.Serve(t, hostilestore.Endless(200, "application/proto", nil))
	cmd := exec.Command(os.Args[0], "-test.run=^TestEndlessStoreProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "UPLOAD_TEST_CHILD=1", "PROFILE_OUT="+filepath.Join(t.TempDir(), "p"),
		"PROFILE_SEGMENT=300ms", "PROFILE_UPLOAD=http://"+addr)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var base, peak int64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var err error
	for done := false; !done; {
		select {
		case err = <-exited:
			done = true
		case <-tick.C:
			rss := residentBytes(cmd.Process.Pid)
			if base == 0 && strings.Contains(out.String(), "ready") {
				base = rss
			}
			peak = max(peak, rss)
			if base > 0 && peak-base > rssMargin {
				cmd.Process.Kill()
			}
		}
	}
	t.Logf("child's resident memory %d MiB at start, peak %d MiB; output:\n%s", base>>20, peak>>20, out.String())
	if base == 0 || peak-base > rssMargin {
		t.Errorf("child's resident memory grew from %d to %d bytes, want at most %d more", base, peak, rssMargin)
	}
	if err != nil {
		t.Errorf("child: %v", err)
	}
	if o := out.String(); !strings.Contains(o, "push failed") || !strings.Contains(o, "resource_exhausted") {
		t.Error("child did not log the failed push")
	}
}

// residentBytes returns the resident memory of process pid, or 0 once it
// has exited.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
