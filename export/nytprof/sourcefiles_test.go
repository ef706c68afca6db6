package nytprof

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
)

func TestSourceFilesRefusesSystemFiles(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "env.go")
	if err := os.Symlink("/proc/self/environ", link); err != nil {
		t.Fatal(err)
	}
	read := SourceFiles(SourceLimits{})
	for _, path := range []string{"/proc/self/environ", "/proc/self/pagemap", "/sys/kernel/mm/transparent_hugepage/enabled", "/dev/zero", link} {
		if b, err := read(path); !errors.Is(err, ErrSourceSystem) {
			t.Errorf("%s: %d bytes, error %v; want ErrSourceSystem", path, len(b), err)
		}
	}
}

func TestSourceFilesRefusesFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, lim := range []SourceLimits{{}, {Root: filepath.Dir(fifo)}} {
		done := make(chan error, 1)
		go func() { _, err := SourceFiles(lim)(fifo); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, reader.ErrNotRegular) {
				t.Errorf("root %q: %v, want reader.ErrNotRegular", lim.Root, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("root %q: reading a FIFO blocked", lim.Root)
		}
	}
}

func TestSourceFilesLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small, big := write("small.go", 100), write("big.go", 1000)
	read := SourceFiles(SourceLimits{MaxFileBytes: 500, MaxTotalBytes: 250})
	if b, err := read(small); err != nil || len(b) != 100 {
		t.Fatalf("small: %d bytes, %v", len(b), err)
	}
	if _, err := read(big); !errors.Is(err, ErrSourceTooLarge) {
		t.Fatalf("big: %v, want ErrSourceTooLarge", err)
	}
	if b, err := read(small); err != nil || len(b) != 100 {
		t.Fatalf("small again: %d bytes, %v", len(b), err)
	}
	if _, err := read(small); !errors.Is(err, ErrSourceBudget) {
		t.Fatalf("past the total: %v, want ErrSourceBudget", err)
	}
}

func TestSourceFilesRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	in := filepath.Join(root, "a.go")
	out := filepath.Join(outside, "secret.go")
	os.WriteFile(in, []byte("package a\n"), 0o600)
	os.WriteFile(out, []byte("SECRET\n"), 0o600)
	escape := filepath.Join(root, "escape.go")
	if err := os.Symlink(out, escape); err != nil {
		t.Fatal(err)
	}
	read := SourceFiles(SourceLimits{Root: root})
	if b, err := read(in); err != nil || string(b) != "package a\n" {
		t.Fatalf("inside: %q, %v", b, err)
	}
	for _, p := range []string{out, escape, filepath.Join(root, "..", filepath.Base(outside), "secret.go")} {
		if b, err := read(p); err == nil {
			t.Errorf("%s: read %q outside the root", p, b)
		} else if !errors.Is(err, ErrSourceOutside) {
			t.Logf("%s: %v", p, err)
		}
	}
}

// TestExportReadsNothingByDefault exports a profile naming a local file and
// /proc/self/environ with the zero Options, and with SourceFiles.
func TestExportReadsNothingByDefault(t *testing.T) {
	t.Setenv("NYTPROF_TEST_SECRET", "s3cr3t-value")
	local := filepath.Join(t.TempDir(), "local.go")
	os.WriteFile(local, []byte("package local // LOCAL-TEXT\n"), 0o600)
	p := &Profile{Start: 1_700_000_000_000_000, Every: 1000}
	for _, file := range []string{local, "/proc/self/environ"} {
		p.Add(1, 0, Frame{File: file, Func: "main.f", Line: 1})
	}
	var plain bytes.Buffer
	if err := WriteSource(&plain, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("LOCAL-TEXT")) || bytes.Contains(plain.Bytes(), []byte("s3cr3t-value")) {
		t.Fatal("the zero Options embedded a local file")
	}
	var opted bytes.Buffer
	if err := WriteSource(&opted, p, Options{ReadSource: SourceFiles(SourceLimits{})}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(opted.Bytes(), []byte("LOCAL-TEXT")) {
		t.Error("SourceFiles did not embed the local file")
	}
	if strings.Contains(opted.String(), "s3cr3t-value") {
		t.Error("SourceFiles embedded /proc/self/environ")
	}
}
