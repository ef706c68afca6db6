package nytprof

import (
	"fmt"

	"github.com/gotachyon/profiler/internal/elfsym"
)

// DeclLines reads the Go line table of the ELF executable at path (for
// example "/proc/self/exe" from inside the profiled program) and returns a
// function for Options.DeclLine mapping a function symbol such as
// "main.main" to the line of its entry point, its declaration.
func DeclLines(path string) (func(sym string) (int, bool), error) {
	tab, err := elfsym.Open(path)
	if err != nil {
		return nil, fmt.Errorf("nytprof: declaration lines: %w", err)
	}
	lines := make(map[string]int, len(tab.Funcs))
	for i := range tab.Funcs {
		fn := &tab.Funcs[i]
		if _, line, _ := tab.PCToLine(fn.Entry); line > 0 {
			lines[fn.Name] = line
		}
	}
	return func(sym string) (int, bool) {
		l, ok := lines[sym]
		return l, ok
	}, nil
}
