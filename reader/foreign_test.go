package reader_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// openAll opens data in memory, through a ReaderAt and from a file (mapped).
func openAll(t *testing.T, data []byte) map[string]error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	errs := map[string]error{}
	_, errs["bytes"] = reader.NewFileBytes(data)
	_, errs["readerat"] = reader.NewFile(bytes.NewReader(data), int64(len(data)))
	f, err := reader.Open(path)
	if err == nil {
		f.Close()
	}
	errs["open"] = err
	return errs
}

// TestForeignFiles: a pprof profile, gzipped as runtime/pprof writes it
// or not, is named as one, with the tool to use; so is a gzipped Tachyon
// profile and other gzipped data.
func TestForeignFiles(t *testing.T) {
	var heap bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&heap, 0); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(heap.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	good := proftest.AllStatusesBytes(t)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"runtime/pprof's heap profile", heap.Bytes(), "not a Tachyon profile: this is a pprof profile: use go tool pprof (it is a gzip-compressed protobuf, as runtime/pprof writes)"},
		{"the same uncompressed", raw, "not a Tachyon profile: this is a pprof profile: use go tool pprof (it is an uncompressed protobuf)"},
		{"a gzipped Tachyon profile", gz(t, good), "a gzip-compressed Tachyon profile: gunzip it first"},
		{"gzipped text", gz(t, []byte(strings.Repeat("hello\n", 20))), "not a Tachyon profile: it is gzip-compressed data (not a pprof profile either)"},
		{"tiny gzipped text", gz(t, []byte("hi")), "not a Tachyon profile: it is gzip-compressed data (not a pprof profile either)"},
		{"text after a line feed", []byte("\n\nnot a profile, only text that starts with blank lines\n" + strings.Repeat("x", 100)), `it starts with "\n\nno", not the magic "HCAT"`},
		{"a pprof profile cut short", raw[:len(raw)-1], `not the magic "HCAT"`},
	} {
		for how, err := range openAll(t, c.data) {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s (%s): %v, want %q", c.name, how, err, c.want)
			}
		}
	}
}

// TestTruncatedInWords: a finished profile cut short, or appended to, is
// described in words, with the sizes that matter and no size read from
// bytes that are not a footer.
func TestTruncatedInWords(t *testing.T) {
	good := proftest.AllStatusesBytes(t)
	f, err := reader.NewFileBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	frameTable := f.Header.FrameTableOffset
	cut := good[:frameTable-10]
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut before its tables", cut, "cut short: truncated: " + strconv.Itoa(len(cut)) + " bytes, the header promises more (its frame table starts at byte " + strconv.FormatUint(frameTable, 10) + ", the footer after it)"},
		{"cut inside its frame table", good[:len(good)-3], "cut short or appended to: the last 32 of its " + strconv.Itoa(len(good)-3) + " bytes are not the footer a finished profile ends with"},
		{"appended to", append(append([]byte{}, good...), "and some more text at the end of it"...), "cut short or appended to"},
	} {
		for how, err := range openAll(t, c.data) {
			if err == nil || reader.Code(err) != reader.EFooterSize || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s (%s): %v, want E_FOOTER_SIZE and %q", c.name, how, err, c.want)
			}
			for _, w := range strings.Fields(err.Error()) {
				if n, _ := strconv.ParseUint(strings.Trim(w, ",()"), 10, 64); n > uint64(len(good))*2 {
					t.Errorf("%s (%s): %v: names %d, a size read from bytes that are no footer", c.name, how, err, n)
				}
			}
		}
	}
}
