package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestDashIsStdout: -o - is standard output for every command that
// writes one file, byte for byte what -o FILE writes, with what the
// command says on stderr; no file named "-" is created. SPX, which
// writes a directory, refuses it and says why.
func TestDashIsStdout(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, args := range [][]string{
		{"convert", "--to", "pprof", in},
		{"convert", "--to", "pprof", "--type", "wall", in},
		{"convert", "--to", "speedscope", in},
		{"convert", "--to", "nytprof", in},
		{"convert", "--to", "dcpi", "--binary", exe, in},
		{"merge", in},
		{"report", in},
	} {
		file := filepath.Join(dir, "out")
		code, fileOut, errs := runCLI(append(args, "-o", file)...)
		if code != exitOK {
			t.Fatalf("%q -o FILE: exit %d: %s", args, code, errs)
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		code, got, errs := runCLI(append(args, "-o", "-")...)
		if code != exitOK || !bytes.Equal([]byte(got), want) {
			t.Errorf("%q -o -: exit %d, %d bytes on stdout, want the %d of -o FILE; stderr %s", args, code, len(got), len(want), errs)
		}
		if fileOut != "" && !strings.Contains(errs, strings.TrimPrefix(fileOut, file)) {
			t.Errorf("%q -o -: stderr %q lacks what -o FILE said on stdout, %q", args, errs, fileOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
			t.Fatalf("%q -o - created a file named -", args)
		}
	}
	code, out, errs := runCLI("convert", "--to", "spx", in, "-o", "-")
	if code != exitUsage || out != "" || !strings.Contains(errs, "directory") || !strings.Contains(errs, "standard output") {
		t.Errorf("spx -o -: exit %d, stdout %q, stderr %q; want exit 2 saying it writes a directory", code, out, errs)
	}
}

// TestDemoDashIsStdout: the demo's profile goes to standard output,
// and its summary to stderr.
func TestDemoDashIsStdout(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errs := runCLI("demo", "-duration", "200ms", "-goroutines", "4", "-o", "-")
	if code != exitOK || !strings.HasPrefix(out, "HCAT") || !strings.Contains(errs, "wrote -") || strings.Contains(errs, "next: tachyon info -") {
		t.Fatalf("demo -o -: exit %d, stdout %.8q (%d bytes), stderr %s", code, out, len(out), errs)
	}
	if err := os.WriteFile("demo.bin", []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("verify", "demo.bin"); code != exitOK {
		t.Errorf("the demo's standard output is no valid profile: %s", errs)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("demo -o - created a file named -")
	}
}

// TestPprofInputSaysSo: a pprof profile given to any command that reads
// profiles is named as one, with the tool to use, and a truncated
// profile is described in words.
func TestPprofInputSaysSo(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	good := proftest.AllStatusesBytes(t)
	if err := os.WriteFile(in, good, 0o644); err != nil {
		t.Fatal(err)
	}
	pgz := filepath.Join(dir, "cpu.pb.gz")
	if code, _, errs := runCLI("convert", "--to", "pprof", in, "-o", pgz); code != exitOK {
		t.Fatal(errs)
	}
	cut := filepath.Join(dir, "cut.bin")
	if err := os.WriteFile(cut, good[:len(good)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct{ path, want string }{
		{pgz, "this is a pprof profile: use go tool pprof"},
		{cut, "cut short: truncated: " + strconv.Itoa(len(good)/3) + " bytes, the header promises more"},
	} {
		for _, args := range [][]string{
			{"info"}, {"verify"}, {"dump"}, {"collapsed"}, {"report", "-o", out}, {"merge", "-o", out},
			{"convert", "--to", "speedscope", "-o", out}, {"convert", "--to", "pprof", "-o", out},
			{"convert", "--to", "spx", "-o", filepath.Join(dir, "spx")},
		} {
			code, stdout, errs := runCLI(append(args, c.path)...)
			if args[0] == "verify" { // a report of each file, on stdout
				errs = stdout
			}
			if code != exitBad || !strings.Contains(errs, c.want) {
				t.Errorf("%q %s: exit %d, stderr %q; want exit 1 and %q", args, filepath.Base(c.path), code, errs, c.want)
			}
		}
	}
}
