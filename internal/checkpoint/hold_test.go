package checkpoint

import (
	"errors"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestOutageLosesNothing: the disk refuses every write for a while (as a
// full disk does) and then takes them again: the stream holds what it
// refused, writes it in order once it can, and loses no sample; a
// checkpoint taken during the outage is not marked until its records are
// on disk.
func TestOutageLosesNothing(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	var logs atomic.Int32
	c, err := New(Options{Dir: dir, Writer: writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionNone},
		Period: time.Hour, fault: func() error {
			if full.Load() {
				return syscall.ENOSPC
			}
			return nil
		}, Logf: func(string, ...any) { logs.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	write(t, c, 0, 100) // and the first checkpoint
	waitWritten(t, c, 1)
	full.Store(true)
	write(t, c, 100, 2000)
	c.checkpoint(time.Now())
	time.Sleep(50 * time.Millisecond)
	if w := c.Stats().Written; w != 1 {
		t.Errorf("a checkpoint whose records the disk refused was marked (%d)", w)
	}
	full.Store(false)
	time.Sleep(RetryEvery)
	write(t, c, 2100, 100)
	path, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := samples(t, path); n != 2200*51 {
		t.Errorf("%d samples after the outage, want %d", n, 2200*51)
	}
	if st := c.Stats(); st.Outages != 1 || logs.Load() != 2 {
		t.Errorf("%+v, %d lines logged; want one outage, said when it began and ended", st, logs.Load())
	}
}

// TestLastingOutage: a disk that refuses writes for longer than the held
// bytes' bound fails the stream with ErrHeldFull, and the last checkpoint
// is left readable.
func TestLastingOutage(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	c, err := New(Options{Dir: dir, Writer: writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionNone},
		Period: time.Hour, maxHeld: 1 << 20, fault: func() error {
			if full.Load() {
				return syscall.ENOSPC
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, c, 0, 100) // the first checkpoint after the first round
	c.checkpoint(time.Now())
	waitWritten(t, c, 2)
	full.Store(true)
	main := c.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 1})
	var werr error
	for i := 0; werr == nil && i < 1_000_000; i++ {
		leaf := c.Frame(tachyon.Frame{File: "main.go", Func: "main.work", Line: int32(i % 1000)})
		werr = c.Thread(99, 0).Write(uint64(3_000_000+i*10_000), 0, []uint32{leaf, main})
	}
	if !errors.Is(werr, ErrHeldFull) {
		t.Fatalf("writing on a full disk: %v, want ErrHeldFull", werr)
	}
	if _, err := c.Close(); !errors.Is(err, ErrHeldFull) {
		t.Errorf("Close: %v, want ErrHeldFull", err)
	}
	out := filepath.Join(t.TempDir(), "left.bin")
	left, err := Recover(dir, out)
	if err != nil || left.Samples != 100*51 {
		t.Fatalf("recovering the last checkpoint: %+v, %v", left, err)
	}
	samples(t, out)
}
