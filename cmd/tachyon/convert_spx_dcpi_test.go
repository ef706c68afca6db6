package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

func TestConvertSPX(t *testing.T) {
	in := testutil.Vectors(t, "tachyon", "threads_8.bin")
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"convert", "--to", "spx", in, "-o", dir, "--top", "2", "--pid", "9"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	js, _ := filepath.Glob(filepath.Join(dir, "spx-full-*-9-*.json"))
	gz, _ := filepath.Glob(filepath.Join(dir, "spx-full-*-9-*.txt.gz"))
	if len(js) != 2 || len(gz) != 2 || strings.Count(out.String(), "\n") != 2 {
		t.Fatalf("files %v %v, output %q", js, gz, out.String())
	}
	if code := run([]string{"convert", "--to", "spx", "--layout", "zigzag", in, "-o", dir}, &out, &errb); code != 1 {
		t.Fatalf("bad layout: exit %d", code)
	}
}

func TestConvertDCPI(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fn := runtime.FuncForPC(reflect.ValueOf(runConvert).Pointer())
	file, line := fn.FileLine(fn.Entry())
	in := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(in, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 10000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: 1_700_000_000_000_000 + uint64(i)*10000,
			Status: tachyon.StatusOnCPU, Frames: []tachyon.Frame{{File: file, Func: fn.Name(), Line: int32(line)}}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p.dcpi")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"convert", "--to", "dcpi", in, "-o", out}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("without --binary: exit %d, want %d (a usage error)", code, exitUsage)
	}
	stderr.Reset()
	if code := run([]string{"convert", "--to", "dcpi", "--binary", exe, in, "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "approximation") || !strings.Contains(stdout.String(), "5 samples at 1 addresses") {
		t.Fatalf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte("\npcsource line-table-approximation\n")) {
		t.Fatalf("header %q", b[:min(len(b), 300)])
	}
}
