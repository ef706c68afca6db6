package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testutil"
)

func TestConvertNYTProf(t *testing.T) {
	dir := t.TempDir()
	in := testutil.Shared(t, "testdata", "tachyon", "recursion.bin")
	out := filepath.Join(dir, "nytprof.out")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"convert", "--to", "nytprof", in, "--compress", "--on-cpu", "-o", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("NYTProf 5 0\n")) || !bytes.Contains(b, []byte("!compress=6\n")) || !bytes.Contains(b, []byte("\nz\x78")) {
		t.Errorf("%s is not a compressed NYTProf file", out)
	}

	bad := testutil.Shared(t, "testdata", "tachyon", "corrupt", "bad_compression_type.bin")
	badOut := filepath.Join(dir, "bad.out")
	stderr.Reset()
	if code := run([]string{"convert", "--to", "nytprof", bad, "-o", badOut}, &stdout, &stderr); code != exitBad {
		t.Errorf("corrupt input: exit %d, want %d", code, exitBad)
	}
	if _, err := os.Stat(badOut); !os.IsNotExist(err) {
		t.Errorf("corrupt input produced %s", badOut)
	}
}
