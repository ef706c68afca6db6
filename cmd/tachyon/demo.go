package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/internal/workload/demo"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "profile a bundled workload of known shape and print what the profile shows",
		usage:   "[-o FILE] [-report FILE.html] [-mode wall|cpu] [-duration D] [-goroutines N] [-rate HZ] [-backend auto|trace|snapshot] [-compression zstd|none] [-dcpi FILE]",
		run:     runDemo,
	})
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["demo"], stderr)
	out := fs.String("o", "demo.bin", "output `file` (- for standard output)")
	modeS := fs.String("mode", "wall", "sampling `mode`: wall or cpu")
	dur := fs.Duration("duration", 5*time.Second, "how long to run the workload")
	n := fs.Int("goroutines", 100, "size of the idle goroutine pool")
	rate := fs.Int("rate", profiler.DefaultRate, "sampling rate in `Hz`")
	backS := fs.String("backend", "auto", "sampler `backend`: auto, trace or snapshot")
	compS := fs.String("compression", "zstd", "sample region compression: zstd or none")
	dcpiOut := fs.String("dcpi", "", "also write a DCPI leaf-PC histogram of this binary to `file` (- for standard output)")
	reportOut := fs.String("report", "", "also write the profile's HTML report to `file`")
	pos, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(pos) != 0 {
		return usageError(fs, "takes no arguments, got %q", pos)
	}
	mode, err := sampler.ParseMode(*modeS)
	if err != nil {
		fmt.Fprintf(stderr, "tachyon demo: %v\n", err)
		return exitUsage
	}
	backend, err := sampler.ParseBackend(*backS)
	if err != nil {
		fmt.Fprintf(stderr, "tachyon demo: %v\n", err)
		return exitUsage
	}
	comp := tachyon.CompressionZstd
	switch *compS {
	case "zstd":
	case "none":
		comp = tachyon.CompressionNone
	default:
		fmt.Fprintf(stderr, "tachyon demo: unknown compression %q\n", *compS)
		return exitUsage
	}
	if *out == Stdout && *dcpiOut == Stdout {
		return usageError(fs, "-o - and --dcpi - would both write to standard output: give one of them a file")
	}
	if *out == Stdout && *reportOut != "" {
		return usageError(fs, "--report reads the profile from its file: give -o a file, not -")
	}
	if *dur <= 0 || *n < 0 {
		fmt.Fprintln(stderr, "tachyon demo: -duration must be positive and -goroutines not negative")
		return exitUsage
	}
	if *rate < 1 || *rate > sampler.MaxRate {
		fmt.Fprintf(stderr, "tachyon demo: -rate %d: want 1 to %d Hz\n", *rate, sampler.MaxRate)
		return exitUsage
	}

	o, err := createDemoOutput(*out, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	defer o.discard() // nothing once committed
	opts := []profiler.Option{profiler.WithOutput(o.File), profiler.WithMode(mode), profiler.WithRate(*rate),
		profiler.WithBackend(backend), profiler.WithCompression(comp),
		profiler.WithQuiet(true), profiler.WithLogger(log.New(io.Discard, "", 0))}
	var d *output
	if *dcpiOut != "" {
		if d, err = createOutputStd(*dcpiOut, stdout); err != nil {
			return fail(stderr, err)
		}
		defer d.discard()
		// The histogram is written by name, to the temporary file.
		opts = append(opts, profiler.WithObserver(dcpi.AtStop(d.Name(), *rate)))
	}
	p := profiler.Start(opts...)
	if err := p.Err(); err != nil {
		return fail(stderr, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	res, werr := demo.Run(ctx, demo.Config{Goroutines: max(*n, 1)})
	cancel()
	if err := p.Stop(); err != nil {
		return fail(stderr, err)
	}
	if werr != nil {
		return fail(stderr, werr)
	}
	sum, err := summarize(o.Name(), *out)
	if err != nil {
		return fail(stderr, err)
	}
	if err := o.commit(); err != nil {
		return fail(stderr, err)
	}
	if d != nil {
		if err := d.commit(); err != nil {
			return fail(stderr, err)
		}
	}
	if *out == Stdout || *dcpiOut == Stdout { // a profile is on standard output: what it holds goes to stderr
		stdout = stderr
	}
	st := p.Stats()
	fmt.Fprintf(stdout, "wrote %s: %s mode, backend %s, %.1f Hz achieved (asked %d)\n", quoteName(*out), mode, st.Backend, st.AchievedHz, *rate)
	if st.Fallback != "" {
		fmt.Fprintf(stdout, "fell back to snapshots: %s\n", st.Fallback)
	}
	fmt.Fprintf(stdout, "workload measured hotA/hotB: %.1f%% / %.1f%% of thread CPU time\n", 100*res.Split(), 100*(1-res.Split()))
	sum.Print(stdout)
	if *out == Stdout {
		return exitOK
	}
	if *reportOut != "" {
		if err := writeDemoReport(*out, *reportOut); err != nil {
			return fail(stderr, err)
		}
	}
	printNext(stdout, *out, *reportOut)
	return exitOK
}

// createDemoOutput is createOutputStd for the demo's profile, which it
// reads back: it must be a regular file (or not exist yet), or Stdout
// (written to a temporary file first).
func createDemoOutput(path string, stdout io.Writer) (*output, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && path != Stdout {
		return nil, fmt.Errorf("%s: is not a regular file: the demo reads its profile back", quoteName(path))
	}
	return createOutputStd(path, stdout)
}

// summarize reads the profile at path, which messages call name, back.
func summarize(path, name string) (demo.Summary, error) {
	f, err := openVerifiedAs(path, name)
	if err != nil {
		return demo.Summary{}, err
	}
	defer f.Close()
	sum, err := demo.Summarize(f)
	if err != nil {
		return sum, wrapPath(name, err)
	}
	return sum, nil
}

// writeDemoReport writes the HTML report of the profile at path to out, as
// tachyon report does with its default options.
func writeDemoReport(path, out string) error {
	f, err := reader.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := report.Aggregate(f, report.Options{Title: "Tachyon profile " + filepath.Base(path)})
	if err != nil {
		return exportError(path, f, err)
	}
	w, err := createOutput(out)
	if err != nil {
		return err
	}
	if err := p.WriteHTML(w); err != nil {
		w.discard()
		return fmt.Errorf("%s: %w", quoteName(out), err)
	}
	return w.commit()
}

// printNext ends the demo's output with what to open and run next, in
// commands that work as printed from the directory the demo ran in: the
// report's file URL, then the info command, spelled as this program was
// started (see selfCommand).
func printNext(w io.Writer, profile, reportOut string) {
	if reportOut != "" {
		abs, err := filepath.Abs(reportOut)
		if err != nil {
			abs = reportOut
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		fmt.Fprintf(w, "open %s in a browser\n", u.String())
	}
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	self := selfCommand(exe, os.Args[0], cwd, exec.LookPath)
	fmt.Fprintf(w, "next: %s info %s\n", self, shellWord(profile))
}

// modulePath is this module's path, which go run accepts from anywhere
// inside the module.
const modulePath = "github.com/gotachyon/profiler"

// selfCommand returns the shell words that start this program again from
// the directory cwd: "go run ./cmd/tachyon" when go run built it (exe lies
// in a go-build directory) and cwd is the module's root, else go run with
// the package's import path; "tachyon" when that name on PATH (lookPath) is
// this executable; else arg0 as given when it names a path, else exe.
func selfCommand(exe, arg0, cwd string, lookPath func(string) (string, error)) string {
	if isGoRunBinary(exe) {
		if isModuleRoot(cwd) {
			return "go run ./cmd/tachyon"
		}
		return "go run " + modulePath + "/cmd/tachyon"
	}
	if p, err := lookPath("tachyon"); err == nil && isSameFile(p, exe) {
		return "tachyon"
	}
	if strings.ContainsRune(arg0, filepath.Separator) {
		p := arg0
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if isSameFile(p, exe) {
			return shellWord(arg0)
		}
	}
	if exe == "" {
		return "tachyon"
	}
	return shellWord(exe)
}

// isGoRunBinary reports whether exe is a binary go run built: go run links
// it as go-build*/.../exe/NAME in its temporary directory, and since Go
// 1.24 runs it again from the build cache, as XX/HASH-d/NAME, where XX
// is the hex hash's first two digits.
func isGoRunBinary(exe string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "exe" && strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return true
	}
	hash, ok := strings.CutSuffix(filepath.Base(dir), "-d")
	return ok && len(hash) >= 32 && isHex(hash) && filepath.Base(filepath.Dir(dir)) == hash[:2]
}

// isHex reports whether s is lower-case hex digits only.
func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isModuleRoot reports whether dir holds this module's go.mod and its
// cmd/tachyon.
func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if strings.TrimSpace(first) != "module "+modulePath {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "cmd", "tachyon"))
	return err == nil && fi.IsDir()
}

// isSameFile reports whether a and b name the same existing file.
func isSameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// shellWord quotes s for a POSIX shell when it holds anything but letters,
// digits and the punctuation file names commonly use.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/+:@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
