package checkpoint

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// write writes n rounds of samples of 50 parked threads and one that
// changes stack, a Watermark after each round.
func write(t *testing.T, c *Writer, from, n int) {
	t.Helper()
	main := c.Frame(tachyon.Frame{File: "main.go", Func: "main.main", Line: 1})
	for r := from; r < from+n; r++ {
		ts := uint64(1_000_000 + r*10_000)
		for id := uint64(1); id <= 50; id++ {
			if err := c.Thread(id, 0).Write(ts, 0, []uint32{main}); err != nil {
				t.Fatal(err)
			}
		}
		leaf := c.Frame(tachyon.Frame{File: "main.go", Func: "main.work", Line: int32(10 + r%7)})
		if err := c.Thread(99, 0).Write(ts, tachyon.StatusOnCPU, []uint32{leaf, main}); err != nil {
			t.Fatal(err)
		}
		c.Watermark(ts)
	}
}

func newWriter(t *testing.T, dir string, c tachyon.Compression) *Writer {
	t.Helper()
	w, err := New(Options{Dir: dir, Writer: writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: c}, Period: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// samples reads the file at path strictly and counts its samples.
func samples(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Verify(); err != nil {
		t.Fatal(err)
	}
	var n uint64
	it := f.Samples()
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitWritten waits until the Writer's n-th mark is on disk.
func waitWritten(t *testing.T, c *Writer, n int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); c.Stats().Written < n; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("mark %d not written: %+v", n, c.Stats())
		}
	}
}

// TestLeftByADeadRun takes two checkpoints and goes on writing, as a run
// that is killed then: Finish gives the samples up to the last
// checkpoint, and Recover a file of them; Close, later, gives them all.
func TestLeftByADeadRun(t *testing.T) {
	for _, comp := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		dir := t.TempDir()
		c := newWriter(t, dir, comp)
		write(t, c, 0, 100) // the first checkpoint is due at once (First 0)
		c.checkpoint(time.Now())
		write(t, c, 100, 100)
		c.checkpoint(time.Now())
		waitWritten(t, c, 3)
		write(t, c, 200, 100) // not in any checkpoint
		out := filepath.Join(t.TempDir(), "left.bin")
		left, err := Recover(dir, out)
		if err != nil {
			t.Fatal(err)
		}
		// The first round's checkpoint (Watermark with First 0) and two.
		if left.Seq != 3 || left.Whole || left.Samples != 200*51 {
			t.Errorf("%v: left %+v, want the third checkpoint of %d samples", comp, left, 200*51)
		}
		if n := samples(t, out); n != 200*51 {
			t.Errorf("%v: the recovered file reads %d samples, want %d", comp, n, 200*51)
		}
		path, err := c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n := samples(t, path); n != 300*51 {
			t.Errorf("%v: the finished stream reads %d samples, want %d", comp, n, 300*51)
		}
		// A directory whose stream Close finished is that file.
		if left, err := Recover(dir, out); err != nil || !left.Whole || left.Samples != 300*51 {
			t.Errorf("%v: after Close: %+v, %v", comp, left, err)
		}
	}
}

// TestNoCheckpointYet: a run that died before its first checkpoint left
// nothing to finish, and says so.
func TestNoCheckpointYet(t *testing.T) {
	dir := t.TempDir()
	c, err := New(Options{Dir: dir, Writer: writer.Options{Interval: 10_000}, First: time.Hour, Period: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Abort()
	write(t, c, 0, 10)
	if _, err := Finish(dir, &bytes.Buffer{}); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("Finish: %v, want ErrNoCheckpoint", err)
	}
}

// TestFirstCoveredOnTime: the sampler writes a second or two late, so
// the checkpoint due at First holds little; one more is taken as soon as
// the samples of the first First are written, before the next is due.
func TestFirstCoveredOnTime(t *testing.T) {
	dir := t.TempDir()
	c, err := New(Options{Dir: dir, Writer: writer.Options{Interval: 10_000}, First: time.Minute, Period: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Abort()
	write(t, c, 5800, 100) // up to 59.99 s of the profile
	if _, err := Finish(dir, &bytes.Buffer{}); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("Finish before the first minute is written: %v, want ErrNoCheckpoint", err)
	}
	write(t, c, 5900, 1) // 60 s
	waitWritten(t, c, 1)
	if left, err := Finish(dir, &bytes.Buffer{}); err != nil || left.Samples != 101*51 {
		t.Errorf("Finish: %+v, %v; want the first minute's %d samples", left, err, 101*51)
	}
	write(t, c, 5901, 100)
	if c.seq != 1 {
		t.Errorf("%d checkpoints taken past the first minute, want 1 until the next is due", c.seq)
	}
}

// TestDamagedMark: a mark that is torn, altered or points past the
// stream is refused with an error naming the file, never used.
func TestDamagedMark(t *testing.T) {
	dir := t.TempDir()
	c := newWriter(t, dir, tachyon.CompressionZstd)
	defer c.Abort()
	write(t, c, 0, 20)
	waitWritten(t, c, 1)
	mark := filepath.Join(dir, MarkName)
	good, err := os.ReadFile(mark)
	if err != nil {
		t.Fatal(err)
	}
	past := bytes.Clone(good)
	m, _ := parseMark("", past)
	m.DataEnd += 1 << 20
	past = appendMark(nil, m)
	flipped := bytes.Clone(good)
	flipped[40] ^= 1
	for name, b := range map[string][]byte{"torn": good[:len(good)/2], "flipped": flipped, "past": past, "empty": nil} {
		if err := os.WriteFile(mark, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Finish(dir, &bytes.Buffer{})
		if !errors.Is(err, ErrMark) || !bytes.Contains([]byte(err.Error()), []byte(mark)) {
			t.Errorf("%s: %v, want ErrMark naming %s", name, err, mark)
		}
	}
}

// FuzzParseMark: any bytes give a mark or an error, never a panic, and a
// mark parsed encodes back to the same bytes.
func FuzzParseMark(f *testing.F) {
	f.Add(appendMark(nil, &Mark{Seq: 1, DataEnd: tachyon.HeaderSize, Tables: []byte{1, 2, 3}}))
	f.Add([]byte(markMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMark("fuzz", b)
		if err != nil {
			return
		}
		if !bytes.Equal(appendMark(nil, m), b) {
			t.Errorf("a parsed mark does not encode back to its bytes")
		}
	})
}

// TestRecoverRefusesDamagedRecords: records damaged below the mark's end
// (the mark's checksum covers the mark alone) are not recovered into a
// file that no reader can decode: Recover fails, writes nothing, and
// leaves the directory as it was.
func TestRecoverRefusesDamagedRecords(t *testing.T) {
	dir := t.TempDir()
	c := newWriter(t, dir, tachyon.CompressionZstd)
	write(t, c, 0, 300)
	c.checkpoint(time.Now())
	waitWritten(t, c, 2)
	data := filepath.Join(dir, DataName)
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := tachyon.HeaderSize + 20; i < tachyon.HeaderSize+120 && i < len(b); i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "left.bin")
	if _, err := Recover(dir, out); !errors.Is(err, ErrDamaged) {
		t.Errorf("Recover of a damaged stream: %v, want ErrDamaged", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written from a damaged stream", out)
	}
	if !Present(dir) {
		t.Error("the directory's stream and mark are gone")
	}
	c.Abort()
}
