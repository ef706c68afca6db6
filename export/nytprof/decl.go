package nytprof

import (
	"fmt"
	"os"

	"github.com/gotachyon/profiler/internal/elfsym"
)

// DeclLines reads the ELF executable at path (for example "/proc/self/exe"
// from inside the profiled program) and returns a function for
// Options.DeclLine mapping a function symbol such as "main.main" to the
// line of its declaration: DWARF's when the binary has it, else the line
// of its entry point in the Go line table (elfsym.StartLines).
func DeclLines(path string) (func(sym string) (int, bool), error) {
	lines, err := declLines(path)
	if err != nil {
		return nil, fmt.Errorf("nytprof: declaration lines: %w", err)
	}
	return func(sym string) (int, bool) {
		l, ok := lines[sym]
		return l, ok
	}, nil
}

// declLines returns the start line of every function of the executable
// at path.
func declLines(path string) (map[string]int, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := elfsym.NewFile(path, r)
	if err != nil {
		return nil, err
	}
	tab, err := elfsym.Table(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := make(map[string]bool, len(tab.Funcs))
	for i := range tab.Funcs {
		names[tab.Funcs[i].Name] = true
	}
	lines, err := elfsym.StartLines(f, tab, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, nil
}
