package reader_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// bigSamples makes a file of about 8 MB, whose sample region spans many
// pages and many of the iterator's buffers.
const bigSamples = 400000

// writeSamples writes n distinct samples of 1 to 64 frames.
func writeSamples(t *testing.T, comp tachyon.Compression, n int) string {
	path := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1, Interval: 1000, Compression: comp})
	if err != nil {
		t.Fatal(err)
	}
	fr := make([]uint32, 64)
	for i := range fr {
		fr[i] = w.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i)})
	}
	x := uint64(1)
	for i := range n {
		x = x*6364136223846793005 + 1442695040888963407
		w.WriteStack(x>>40, 0, uint64(i+1), 0, fr[:1+x>>58])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTruncatedWhileReading truncates a mapped file under an iterator: the
// iterator must end with ErrChanged, not kill the process with SIGBUS.
func TestTruncatedWhileReading(t *testing.T) {
	for _, comp := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		path := writeSamples(t, comp, bigSamples)
		f, err := reader.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		it := f.Samples()
		for range 1000 {
			it.Next()
		}
		if err := os.Truncate(path, 4096); err != nil {
			t.Fatal(err)
		}
		n := 0
		for it.Next() {
			n++
		}
		err = it.Err()
		if comp == tachyon.CompressionNone && !errors.Is(err, reader.ErrChanged) {
			t.Errorf("uncompressed: after truncation %d samples, error %v; want ErrChanged", n, err)
		}
		if comp == tachyon.CompressionZstd && err == nil {
			t.Errorf("zstd: after truncation %d samples and no error", n)
		}
		t.Logf("compression %d: %v", comp, err)
		it.Close()
		f.Close()
	}
}

// TestUseAfterClose reads a mapped file after Close: an error, not a fault.
func TestUseAfterClose(t *testing.T) {
	f, err := reader.Open(writeSamples(t, tachyon.CompressionNone, bigSamples))
	if err != nil {
		t.Fatal(err)
	}
	it := f.Samples()
	it.Next()
	f.Close()
	for it.Next() {
	}
	if !errors.Is(it.Err(), reader.ErrClosed) && !errors.Is(it.Err(), reader.ErrChanged) {
		t.Errorf("iterating after Close: %v", it.Err())
	}
	if err := f.Verify(); !errors.Is(err, reader.ErrClosed) {
		t.Errorf("Verify after Close: %v, want ErrClosed", err)
	}
}

// TestOpenFIFO opens a FIFO nobody writes to: refused at once.
func TestOpenFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.bin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := reader.Open(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, reader.ErrNotRegular) {
			t.Errorf("Open(FIFO): %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open(FIFO) blocked")
	}
	if _, err := reader.Open("/dev/null"); !errors.Is(err, reader.ErrNotRegular) {
		t.Errorf("Open(/dev/null): %v, want ErrNotRegular", err)
	}
}

// TestNotFinalized reads what a writer leaves before Close (a zero header,
// with or without data after it): the error says so in plain words.
func TestNotFinalized(t *testing.T) {
	for _, size := range []int{tachyon.HeaderSize, 4096} {
		path := filepath.Join(t.TempDir(), "p.bin")
		b := make([]byte, size)
		for i := tachyon.HeaderSize; i < size; i++ {
			b[i] = byte(i)
		}
		os.WriteFile(path, b, 0o600)
		_, err := reader.Open(path)
		if err == nil || !strings.Contains(err.Error(), "not finalized") || !strings.Contains(err.Error(), "was Stop called?") {
			t.Errorf("%d bytes: %v", size, err)
		}
	}
}
