package runlock_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/runlock"
)

// TestChildHolds is the child process of TestKilledProcess: it holds the
// file named by RUNLOCK_CHILD, says so, and waits to be killed.
func TestChildHolds(t *testing.T) {
	path := os.Getenv("RUNLOCK_CHILD")
	if path == "" {
		return // not the child: nothing to do
	}
	f, err := runlock.Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Stdout.WriteString("held\n")
	select {}
}

// TestKilledProcess checks that a file another process holds is not
// abandoned while that process lives, and is once it was killed.
func TestKilledProcess(t *testing.T) {
	if os.Getenv("RUNLOCK_CHILD") != "" {
		return
	}
	path := filepath.Join(t.TempDir(), "p.part")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildHolds$")
	cmd.Env = append(os.Environ(), "RUNLOCK_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	age(t, path)
	if runlock.Abandoned(path) {
		t.Fatal("a live process's file is abandoned")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if ok, err := runlock.Remove(path); !ok || err != nil {
		t.Fatalf("Remove after the kill: %v, %v", ok, err)
	}
}
