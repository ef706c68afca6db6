package reader_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/collapsed"
	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// manifest is the part of the public vectors' manifest.json the tests use.
type manifest struct {
	Valid []struct {
		Name   string
		Header struct {
			SampleCount uint32 `json:"sample_count"`
			ThreadCount uint32 `json:"thread_count"`
		}
		Records map[string]uint64
	}
	Corrupt []struct {
		Name       string
		File       string
		FirstError string   `json:"first_error"`
		AllErrors  []string `json:"all_error_codes"`
	}
}

func loadManifest(t *testing.T) (string, manifest) {
	dir := testutil.Vectors(t, "tachyon")
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Valid) == 0 || len(m.Corrupt) == 0 {
		t.Fatal("manifest lists no vectors")
	}
	return dir, m
}

// openers are the two ways to read a file: mapped by Open, or through
// io.ReaderAt by NewFile.
var openers = map[string]func(path string) (*reader.File, error){
	"mmap": reader.Open,
	"readerat": func(path string) (*reader.File, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, _ := fh.Stat()
		f, err := reader.NewFile(fh, st.Size())
		if err != nil {
			fh.Close()
		}
		return f, err // the *os.File is left to the finalizer in tests
	},
}

func parseJSONL(t *testing.T, b []byte) []jsonl.Sample {
	var out []jsonl.Sample
	for line := range bytes.Lines(b) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var s jsonl.Sample
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatalf("expected sample %q: %v", line, err)
		}
		if s.Stack == nil {
			s.Stack = jsonl.Stack{}
		}
		out = append(out, s)
	}
	return out
}

// TestValidVectors decodes every public valid vector, raw and zstd (and the
// zstd frame with checksum and content size), both through mmap and through
// io.ReaderAt, and compares samples in file order with NAME.jsonl, folded
// stacks with NAME.collapsed.txt and the counts with the manifest.
func TestValidVectors(t *testing.T) {
	dir, m := loadManifest(t)
	for _, v := range m.Valid {
		want := parseJSONL(t, proftest.VectorText(t, filepath.Join(dir, v.Name+".jsonl")))
		wantFolded := string(proftest.VectorText(t, filepath.Join(dir, v.Name+".collapsed.txt")))
		files := []string{v.Name + ".bin", v.Name + ".zstd.bin"}
		if _, err := os.Stat(filepath.Join(dir, v.Name+".zstd-checksum.bin")); err == nil {
			files = append(files, v.Name+".zstd-checksum.bin")
		}
		for _, file := range files {
			for how, open := range openers {
				t.Run(file+"/"+how, func(t *testing.T) {
					f, err := open(filepath.Join(dir, file))
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					if f.Header.SampleCount != v.Header.SampleCount || f.Header.ThreadCount != v.Header.ThreadCount {
						t.Errorf("header counts %d/%d, manifest %d/%d", f.Header.SampleCount, f.Header.ThreadCount, v.Header.SampleCount, v.Header.ThreadCount)
					}
					got := proftest.Samples(t, f)
					if len(got) != len(want) {
						t.Fatalf("decoded %d samples, want %d", len(got), len(want))
					}
					for i := range got {
						if !got[i].Equal(want[i]) {
							g, _ := json.Marshal(got[i])
							w, _ := json.Marshal(want[i])
							t.Fatalf("sample %d:\n got %s\nwant %s", i, g, w)
						}
					}
					var folded strings.Builder
					if err := collapsed.Write(&folded, f, collapsed.Options{}); err != nil {
						t.Fatal(err)
					}
					if folded.String() != wantFolded {
						t.Errorf("collapsed output differs from %s.collapsed.txt:\n%s", v.Name, folded.String())
					}
					it := f.Samples()
					for it.Next() {
					}
					st := it.Stats()
					for name, n := range map[string]uint64{"REPEAT": st.Records[0], "FULL": st.Records[1], "SUFFIX": st.Records[2], "POP_PUSH": st.Records[3]} {
						if n != v.Records[name] {
							t.Errorf("%s records %d, manifest %d", name, n, v.Records[name])
						}
					}
				})
			}
		}
	}
}

// TestCorruptVectors checks that every corrupt vector is rejected with a
// *FormatError wrapping ErrFormat whose code is one of the problems the
// reference validator found in that file.
func TestCorruptVectors(t *testing.T) {
	dir, m := loadManifest(t)
	if len(m.Corrupt) < 42 {
		t.Errorf("manifest lists %d corrupt files, want at least 42", len(m.Corrupt))
	}
	for _, c := range m.Corrupt {
		for how, open := range openers {
			t.Run(c.Name+"/"+how, func(t *testing.T) {
				f, err := open(filepath.Join(dir, c.File))
				if err == nil {
					err = f.Verify()
					f.Close()
				}
				if err == nil {
					t.Fatalf("accepted; want %s", c.FirstError)
				}
				var fe *reader.FormatError
				if !errors.As(err, &fe) || !errors.Is(err, reader.ErrFormat) {
					t.Fatalf("error %v is not a *FormatError wrapping ErrFormat", err)
				}
				if !slices.Contains(c.AllErrors, fe.Code) {
					t.Errorf("code %s (%v); the reference found %v", fe.Code, err, c.AllErrors)
				}
				if fe.Offset < 0 || fe.Offset >= int64(max(1, fileSize(t, filepath.Join(dir, c.File)))) {
					t.Errorf("offset %d outside the file", fe.Offset)
				}
			})
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
