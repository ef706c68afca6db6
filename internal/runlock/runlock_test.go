package runlock

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

func TestHeldWhileLocked(t *testing.T) {
	dir := t.TempDir()
	if Held(dir) {
		t.Fatal("a directory without a lock file is held")
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Error("not held while locked")
	}
	if _, err := Acquire(dir); !errors.Is(err, ErrHeld) {
		t.Errorf("second Acquire: %v, want ErrHeld", err)
	}
	l.Release()
	if Held(dir) {
		t.Error("held after Release")
	}
}

// TestDeadProcessReleases checks that the lock of a process that was
// killed is free: the kernel drops it with the process.
func TestDeadProcessReleases(t *testing.T) {
	if os.Getenv("RUNLOCK_CHILD") != "" {
		if _, err := Acquire(os.Getenv("RUNLOCK_CHILD")); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		select {}
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeadProcessReleases$")
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
	if !Held(dir) {
		t.Error("not held while the child runs")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Held(dir) {
		t.Error("held after the child was killed")
	}
}
