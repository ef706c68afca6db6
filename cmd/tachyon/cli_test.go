package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestHelpOnce: every command's --help prints its usage once, on stderr,
// and exits 0.
func TestHelpOnce(t *testing.T) {
	for name, c := range commands {
		for _, h := range []string{"--help", "-h"} {
			code, out, errs := runCLI(name, h)
			if code != exitOK || strings.Count(out+errs, synopsis(c)) != 1 {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want the usage once and exit 0", name, h, code, out, errs)
			}
		}
	}
}

// TestUsageErrors: usage errors go to stderr with exit 2 and say what is
// wrong; "tachyon" alone is one.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: tachyon <command>"},
		{[]string{"info"}, "needs a FILE, several FILEs or a DIR"},
		{[]string{"verify"}, "needs at least one FILE"},
		{[]string{"report", in}, "needs -o OUT"},
		{[]string{"convert", "--to", "pprof", in}, "needs -o OUT"},
		{[]string{"convert", "--to", "dcpi", in, "-o", filepath.Join(dir, "x.dcpi")}, "needs --binary PROG"},
		{[]string{"convert", "--to", "nope", in, "-o", "x"}, "--to must be one of"},
		{[]string{"encode", in}, "needs an input and an output file"},
		{[]string{"version", "x"}, "takes no arguments"},
		{[]string{"help", "nope"}, "unknown command"},
		{[]string{"demo", "-rate", "0", "-o", filepath.Join(dir, "demo.bin")}, "-rate 0: want 1 to"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("tachyon %q: exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", c.args, code, out, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.dcpi")); !os.IsNotExist(err) {
		t.Errorf("a usage error left an output behind: %v", err)
	}
}

// TestHelpConvertListsFormats: "help convert" names every format and its
// own flags.
func TestHelpConvertListsFormats(t *testing.T) {
	code, out, _ := runCLI("help", "convert")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--to dcpi", "-binary", "--to nytprof", "-on-cpu", "--to pprof", "-type", "--to speedscope", "-top", "--to spx", "-layout"} {
		if !strings.Contains(out, want) {
			t.Errorf("help convert lacks %q:\n%s", want, out)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI("version")
	if code != exitOK || !strings.HasPrefix(out, "tachyon ") || !strings.Contains(out, "Tachyon format v2") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

// TestPlainErrors: files that are not finished profiles get an error in
// plain words, naming the file once.
func TestPlainErrors(t *testing.T) {
	dir := t.TempDir()
	good := proftest.AllStatusesBytes(t)
	files := map[string][]byte{
		"unfinished.bin": make([]byte, 4096), // the writer's placeholder header, never finalized
		"cut.bin":        good[:len(good)/2],
		"short.bin":      good[:50],
		"text.txt":       []byte(strings.Repeat("not a profile at all\n", 10)),
		"small.txt":      []byte("hello\n"),
	}
	want := map[string]string{
		"unfinished.bin": "not finalized", "cut.bin": "cut short", "short.bin": "cut short",
		"text.txt": "not a Tachyon profile", "small.txt": "not a Tachyon profile",
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(path, want string) {
		t.Helper()
		code, _, errs := runCLI("info", path)
		if code != exitBad || !strings.Contains(errs, want) || strings.Count(errs, "tachyon:") != 1 || strings.Count(errs, path) != 1 {
			t.Errorf("info %s: exit %d, %q; want exit 1 and %q, the file named once", path, code, errs, want)
		}
	}
	for name, w := range want {
		check(filepath.Join(dir, name), w)
	}
	check(dir, "it is a directory")
}

// TestInfoViews: info keeps its format lines and adds the mode, the share
// of each state, the goroutine groups and the top functions on and off CPU.
func TestInfoViews(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("info", in)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"samples:       512\n", "threads:       256\n", // format facts stay
		"mode:          wall", "states:        running=", "blocked=",
		"goroutines:    256 with samples, in 1 groups by start function\n       256  main.main\n",
		"top on CPU:", "top off CPU:", "main.status_",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
}

// TestHelpListsFlags: "help X" prints the summary, the synopsis and every
// flag X accepts, and the synopsis names each of them.
func TestHelpListsFlags(t *testing.T) {
	for name, c := range commands {
		if c.help != nil {
			continue // convert: TestHelpConvertListsFormats
		}
		code, out, _ := runCLI("help", name)
		if code != exitOK || !strings.Contains(out, c.summary) || !strings.Contains(out, synopsis(c)) {
			t.Errorf("help %s: exit %d:\n%s", name, code, out)
			continue
		}
		_, _, helpOut := runCLI(name, "-h")
		for _, line := range strings.Split(helpOut, "\n") {
			f, ok := strings.CutPrefix(line, "  -")
			if !ok {
				continue
			}
			f, _, _ = strings.Cut(f, " ")
			if !strings.Contains(out, "-"+f) || !strings.Contains(c.usage, "-"+f) {
				t.Errorf("help %s: the flag -%s is not in its help or its synopsis %q", name, f, c.usage)
			}
		}
	}
}

// TestUnknownCommandSuggests: a misspelt command is a usage error that
// names the command meant.
func TestUnknownCommandSuggests(t *testing.T) {
	code, _, errs := runCLI("infos", "x.bin")
	if code != exitUsage || !strings.Contains(errs, `did you mean "info"?`) {
		t.Errorf("tachyon infos: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI("--version"); code != exitOK || !strings.Contains(out, "Tachyon format") {
		t.Errorf("tachyon --version: exit %d, %q", code, out)
	}
}
