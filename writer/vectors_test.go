package writer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/internal/seekbuf"
	"github.com/gotachyon/profiler/internal/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// inputStream reads a vector's NAME.input.jsonl (or .zst).
func inputStream(t *testing.T, path string) (jsonl.Meta, []jsonl.Sample) {
	b, err := os.ReadFile(path)
	if err != nil {
		z, zerr := os.ReadFile(path + ".zst")
		if zerr != nil {
			t.Fatal(err)
		}
		d, _ := zstd.NewReader(nil)
		defer d.Close()
		if b, err = d.DecodeAll(z, nil); err != nil {
			t.Fatal(err)
		}
	}
	in, err := jsonl.NewInput(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []jsonl.Sample
	for {
		var s jsonl.Sample
		if err := in.Next(&s); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return in.Meta, out
}

func encode(t testing.TB, meta jsonl.Meta, samples []jsonl.Sample, c tachyon.Compression) []byte {
	var m seekbuf.Buffer
	w, err := writer.New(&m, writer.Options{StartTime: meta.StartTimeUS, Interval: meta.IntervalUS, Compression: c})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		ws := writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, Timestamp: s.TimestampUS, Status: s.Status}
		for _, f := range s.Stack {
			ws.Frames = append(ws.Frames, tachyon.Frame(f))
		}
		if err := w.WriteSample(&ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

// decodeByThread decodes a file and groups the samples by thread, keeping
// each thread's order: the order a writer must preserve.
func decodeByThread(t testing.TB, b []byte) map[[2]uint64][]string {
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]uint64][]string{}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		js := jsonl.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, TimestampUS: s.Timestamp, Status: s.Status, Stack: jsonl.Stack{}}
		for _, fr := range it.Frames(nil) {
			js.Stack = append(js.Stack, fr)
		}
		line, _ := json.Marshal(js)
		k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
		out[k] = append(out[k], string(line))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVectorsByteIdentical encodes every public vector's input stream and
// compares: raw output byte for byte with NAME.bin; zstd output decoded
// sample for sample with it.
func TestVectorsByteIdentical(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl*"))
	if len(inputs) < 12 {
		t.Fatalf("found %d input streams, want at least 12", len(inputs))
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(in), ".zst"), ".input.jsonl")
		t.Run(name, func(t *testing.T) {
			meta, samples := inputStream(t, strings.TrimSuffix(in, ".zst"))
			want, err := os.ReadFile(filepath.Join(dir, name+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			raw := encode(t, meta, samples, tachyon.CompressionNone)
			if !bytes.Equal(raw, want) {
				t.Errorf("raw encoding differs from %s.bin (%d vs %d bytes)", name, len(raw), len(want))
			}
			z := encode(t, meta, samples, tachyon.CompressionZstd)
			if got, exp := decodeByThread(t, z), decodeByThread(t, want); !equalThreads(got, exp) {
				t.Errorf("zstd encoding decodes to different samples")
			}
		})
	}
}

func equalThreads(a, b map[[2]uint64][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w := b[k]
		if len(v) != len(w) {
			return false
		}
		for i := range v {
			if v[i] != w[i] {
				return false
			}
		}
	}
	return true
}

// TestRealisticZstdSize holds the compression goal: realistic_50k with zstd
// in at most 4.9 bytes per sample, whole file included.
func TestRealisticZstdSize(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	meta, samples := inputStream(t, filepath.Join(dir, "realistic_50k.input.jsonl"))
	z := encode(t, meta, samples, tachyon.CompressionZstd)
	per := float64(len(z)) / float64(len(samples))
	t.Logf("realistic_50k zstd: %d bytes, %.3f bytes/sample", len(z), per)
	if per > 4.9 {
		t.Errorf("%.3f bytes/sample, want at most 4.9", per)
	}
}
