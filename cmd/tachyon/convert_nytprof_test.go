package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

func TestConvertNYTProf(t *testing.T) {
	dir := t.TempDir()
	in := testutil.Vectors(t, "tachyon", "recursion.bin")
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

	bad := testutil.Vectors(t, "tachyon", "corrupt", "bad_compression_type.bin")
	badOut := filepath.Join(dir, "bad.out")
	stderr.Reset()
	if code := run([]string{"convert", "--to", "nytprof", bad, "-o", badOut}, &stdout, &stderr); code != exitBad {
		t.Errorf("corrupt input: exit %d, want %d", code, exitBad)
	}
	if _, err := os.Stat(badOut); !os.IsNotExist(err) {
		t.Errorf("corrupt input produced %s", badOut)
	}
}

// TestConvertNYTProfSourceConsent converts a profile naming a local file
// and /proc/self/environ: by default nothing is read; --source embeds the
// local file and never the environment; --source-root keeps to its tree.
func TestConvertNYTProfSourceConsent(t *testing.T) {
	t.Setenv("TACHYON_TEST_SECRET", "s3cr3t-value")
	dir := t.TempDir()
	local := filepath.Join(dir, "src", "local.go")
	os.MkdirAll(filepath.Dir(local), 0o700)
	os.WriteFile(local, []byte("package local // LOCAL-TEXT\n"), 0o600)
	in := filepath.Join(dir, "p.bin")
	w, err := writer.Create(in, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, file := range []string{local, "/proc/self/environ", "/proc/self/pagemap"} {
		f := w.Frame(tachyon.Frame{File: file, Func: "main.f", Line: 1})
		w.WriteStack(uint64(i+1), 0, 1_700_000_000_000_000, 0, []uint32{f})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		local bool
	}{
		{nil, false},
		{[]string{"--source"}, true},
		{[]string{"--source-root", filepath.Dir(local)}, true},
		{[]string{"--source-root", t.TempDir()}, false},
		{[]string{"--source", "--no-source"}, false},
	} {
		out := filepath.Join(dir, "nytprof.out")
		var stdout, stderr bytes.Buffer
		args := append([]string{"convert", "--to", "nytprof", in, "-o", out}, c.args...)
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		b, _ := os.ReadFile(out)
		if bytes.Contains(b, []byte("s3cr3t-value")) {
			t.Errorf("%v: the output holds the converter's environment", c.args)
		}
		if got := bytes.Contains(b, []byte("LOCAL-TEXT")); got != c.local {
			t.Errorf("%v: local source embedded %v, want %v", c.args, got, c.local)
		}
	}
}
