package runlock_test

import (
	"errors"
	"github.com/gotachyon/profiler/internal/runlock"
	"os"
	"os/exec"
	"testing"
)

func TestDirHeldWhileLocked(t *testing.T) {
	dir := t.TempDir()
	if runlock.DirHeld(dir) {
		t.Fatal("a directory without a lock file is held")
	}
	l, err := runlock.AcquireDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !runlock.DirHeld(dir) {
		t.Error("not held while locked")
	}
	if _, err := runlock.AcquireDir(dir); !errors.Is(err, runlock.ErrHeld) {
		t.Errorf("second Acquire: %v, want ErrHeld", err)
	}
	l.Release()
	if runlock.DirHeld(dir) {
		t.Error("held after Release")
	}
}

// TestDirDeadProcessReleases checks that the lock of a process that was
// killed is free: the kernel drops it with the process.
func TestDirDeadProcessReleases(t *testing.T) {
	if os.Getenv("RUNLOCK_CHILD") != "" {
		if _, err := runlock.AcquireDir(os.Getenv("RUNLOCK_CHILD")); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		select {}
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDirDeadProcessReleases$")
	cmd.Env = append(os.Environ(), "RUNLOCK_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q, %v", buf, err)
	}
	if !runlock.DirHeld(dir) {
		t.Error("not held while the child runs")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if runlock.DirHeld(dir) {
		t.Error("held after the child was killed")
	}
}
