package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	register(&command{
		name:    "pgo",
		summary: "write a profile for go build -pgo: the on-CPU samples, with start lines from --binary PROG",
		usage:   "FILE... | DIR --binary PROG -o default.pgo [--runs all|latest|ID]",
		run:     runPGO,
	})
}

// pgoNeedsBinary is the usage error of a PGO profile asked for without
// the executable: why it is needed, and how.
const pgoNeedsBinary = "needs --binary PROG, the profiled executable: go build -pgo refuses a profile without each function's start line (\"missing Function.start_line\"), which a Tachyon file does not record and PROG's line table gives"

// pgoHint is the command that makes a profile for go build -pgo, for the
// notes of convert --to pprof.
const pgoHint = "for go build -pgo, run: tachyon pgo FILE --binary PROG -o default.pgo"

// runPGO writes the on-CPU samples of a profile, whatever its mode, as a
// CPU profile with start lines: what go build -pgo reads.
func runPGO(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["pgo"], stderr)
	binary := fs.String("binary", "", "the profiled Go executable (`PROG`): its line table and DWARF give each function's start line, which go build -pgo needs")
	out := fs.String("o", "", "output `file` (- for standard output); go build uses default.pgo in the main package's directory")
	runs := runsFlag(fs)
	files, code := parseFlags(fs, args)
	switch {
	case code != proceed:
		return code
	case len(files) == 0:
		return usageError(fs, "%v", errNoInput)
	case *binary == "":
		return usageError(fs, "%s", pgoNeedsBinary)
	case *out == "":
		return usageError(fs, "needs -o OUT (default.pgo, in the main package's directory, is what go build -pgo=auto reads)")
	}
	in, release, err := resolveInputRuns(files, *runs, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer release()
	f, err := reader.Open(in.path)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	// Only the on-CPU samples, one value per sample as go build -pgo
	// reads it, and no goroutine label, which it ignores.
	p, err := pprof.Convert(f, pprof.Options{Type: pprof.CPU, Binary: *binary, MaxGoroutines: -1})
	if err != nil {
		return fail(stderr, exportError(in.name, f, err))
	}
	var onCPU int64
	for _, s := range p.Sample {
		onCPU += s.Value[0]
	}
	if onCPU == 0 {
		return fail(stderr, fmt.Errorf("%s: no sample on a CPU (running): nothing for go build -pgo to weigh", quoteName(in.name)))
	}
	if !hasStartLine(p) {
		// go build -pgo fails on such a profile ("profile missing
		// Function.start_line data"): every build with it would break.
		return fail(stderr, fmt.Errorf("%s: none of the profile's %d functions is in %s, so none has a start line and go build -pgo would refuse the profile: is it the profiled binary?", quoteName(in.name), len(p.Function), quoteName(*binary)))
	}
	o, err := createOutputStd(*out, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	bw := bufio.NewWriter(o)
	err = p.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		o.discard()
		return fail(stderr, fmt.Errorf("%s: %w", quoteName(*out), err))
	}
	if err := o.commit(); err != nil {
		return fail(stderr, err)
	}
	say := stdout
	if *out == Stdout {
		say = stderr
	}
	total := int64(f.Header.SampleCount)
	fmt.Fprintf(say, "%s: %d samples on a CPU, of %d", quoteName(*out), onCPU, total)
	if left := total - onCPU; left > 0 {
		fmt.Fprintf(say, " (the %d off it, parked, runnable or in system calls, left out: go build -pgo weighs CPU time)", left)
	}
	fmt.Fprintln(say)
	return exitOK
}

// hasStartLine reports whether any function of p has a start line, which
// go build -pgo requires of at least one.
func hasStartLine(p *profile.Profile) bool {
	for _, fn := range p.Function {
		if fn.StartLine != 0 {
			return true
		}
	}
	return false
}
