package pprof

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/elfsym"
)

// binaryLines reads the start lines of a profile's functions from the
// profiled executable: the line of each function's declaration, as
// runtime/pprof records it. go build -pgo weighs a call site by its line
// relative to that start, and ignores a profile without start lines.
// DWARF, when the binary has it, declares every function, those the
// compiler inlined everywhere too. Else the line table gives the line of
// each function's entry, the declaration's for a function that calls
// others (its prologue), the first statement's for a leaf without a
// frame; a function inlined everywhere has no entry and keeps StartLine 0.
type binaryLines struct {
	path string
	r    *os.File // f's file: elf.NewFile does not close it
	f    *elf.File
	tab  *gosym.Table
}

// openBinary opens the executable at path and reads its line table, so
// that a wrong --binary fails before the profile is read.
func openBinary(path string) (*binaryLines, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pprof: start lines: %w", err)
	}
	f, err := elfsym.NewFile(path, r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("pprof: start lines: %w", err)
	}
	tab, err := elfsym.Table(f)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("pprof: start lines: %s: %w", path, err)
	}
	return &binaryLines{path: path, r: r, f: f, tab: tab}, nil
}

// Close closes the executable.
func (b *binaryLines) Close() error { return b.r.Close() }

// set sets the StartLine of each of fns the executable knows
// (elfsym.StartLines: DWARF's declaration lines, else the line table's
// entry lines).
func (b *binaryLines) set(fns []*profile.Function) error {
	names := make(map[string]bool, len(fns))
	for _, fn := range fns {
		names[fn.Name] = true
	}
	lines, err := elfsym.StartLines(b.f, b.tab, names)
	if err != nil {
		return fmt.Errorf("pprof: start lines: %s: %w", b.path, err)
	}
	for _, fn := range fns {
		if line, ok := lines[fn.Name]; ok {
			fn.StartLine = int64(line)
		}
	}
	return nil
}
