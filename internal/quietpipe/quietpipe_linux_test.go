package quietpipe

import (
	"os"
	"syscall"
	"testing"
)

// TestFollowsDescriptor: Stderr writes to whatever descriptor 2 is at the
// time of the write.
func TestFollowsDescriptor(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Dup3(saved, 2, 0); syscall.Close(saved) }()
	if err := syscall.Dup3(int(f.Fd()), 2, 0); err != nil {
		t.Fatal(err)
	}
	Stderr.Write([]byte("moved\n"))
	syscall.Dup3(saved, 2, 0)
	if b, _ := os.ReadFile(f.Name()); string(b) != "moved\n" {
		t.Errorf("the file descriptor 2 was moved to holds %q", b)
	}
}
