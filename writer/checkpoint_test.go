package writer_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestCheckpoint writes samples across three checkpoints, with REPEAT
// runs still pending at each: the bytes written up to each checkpoint,
// under its header and followed by its tables, are a finished file of the
// samples so far, and the file Close finishes holds them all.
func TestCheckpoint(t *testing.T) {
	for _, c := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		var m seekbuf.Buffer
		w, err := writer.New(&m, writer.Options{StartTime: 1000, Interval: 10, Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		frames := []tachyon.Frame{{Func: "main.main", File: "main.go", Line: 3}, {Func: "main.work", File: "main.go", Line: 9}}
		var cps []writer.Checkpoint
		var buf []byte
		ts := uint64(1000)
		for round := range 3 {
			for range 50 {
				ts += 10
				for id := uint64(1); id <= 4; id++ {
					// Goroutine 4 meets a new frame in every round.
					st := frames
					if id == 4 {
						st = append(st[:1:1], tachyon.Frame{Func: "main.round", File: "main.go", Line: int32(20 + round)})
					}
					if err := w.WriteSample(&writer.Sample{ThreadID: id, Timestamp: ts, Status: 0, Frames: st}); err != nil {
						t.Fatal(err)
					}
				}
			}
			cp, err := w.Checkpoint(buf)
			if err != nil {
				t.Fatal(err)
			}
			cps = append(cps, writer.Checkpoint{DataEnd: cp.DataEnd, Header: cp.Header, Tables: bytes.Clone(cp.Tables), Samples: cp.Samples})
			buf = cp.Tables
		}
		for range 10 { // after the last checkpoint
			ts += 10
			w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: ts, Status: tachyon.StatusOnCPU, Frames: frames})
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		all := m.Bytes()
		for i, cp := range cps {
			if cp.Samples != uint64(200*(i+1)) {
				t.Errorf("%v: checkpoint %d: %d samples, want %d", c, i, cp.Samples, 200*(i+1))
			}
			file := append(append(cp.Header[:], all[tachyon.HeaderSize:cp.DataEnd]...), cp.Tables...)
			if n := verifyBytes(t, file); n != cp.Samples {
				t.Errorf("%v: checkpoint %d reads %d samples, want %d", c, i, n, cp.Samples)
			}
			if i == len(cps)-1 && c == tachyon.CompressionZstd && !testing.Short() {
				refValidate(t, file)
			}
		}
		if n := verifyBytes(t, all); n != 610 {
			t.Errorf("%v: the whole file reads %d samples, want 610", c, n)
		}
	}
}

// verifyBytes verifies the Tachyon file b and returns how many samples
// its records hold.
func verifyBytes(t *testing.T, b []byte) uint64 {
	t.Helper()
	return uint64(len(decoded(t, b)))
}

// refValidate runs the reference tool's validator on the file b: the
// records of a file written across checkpoints are several zstd frames.
func refValidate(t *testing.T, b []byte) {
	t.Helper()
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	p := filepath.Join(t.TempDir(), "checkpoint.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, ref, "validate", p).CombinedOutput(); err != nil {
		t.Errorf("the reference validator rejects a checkpoint's file: %v\n%s", err, out)
	}
}
