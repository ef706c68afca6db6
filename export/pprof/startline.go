package pprof

import (
	"debug/elf"
	"debug/gosym"
	"fmt"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/elfsym"
)

// setStartLines sets the StartLine of each of fns found in the executable
// at binary: the line of its declaration, as runtime/pprof records it. go
// build -pgo weighs a call site by its line relative to that start, and
// ignores a profile without start lines. DWARF, when the binary has it,
// declares every function, those the compiler inlined everywhere too.
// Else the line table gives the line of each function's entry, the
// declaration's for a function that calls others (its prologue), the
// first statement's for a leaf without a frame; a function inlined
// everywhere has no entry and keeps StartLine 0.
func setStartLines(binary string, fns []*profile.Function) error {
	f, err := elf.Open(binary)
	if err != nil {
		return fmt.Errorf("pprof: start lines: %w", err)
	}
	defer f.Close()
	tab, err := elfsym.Table(f)
	if err != nil {
		return fmt.Errorf("pprof: start lines: %s: %w", binary, err)
	}
	byName := make(map[string][]*profile.Function, len(fns))
	for _, fn := range fns {
		byName[fn.Name] = append(byName[fn.Name], fn)
	}
	if err := fromDWARF(f, binary, byName); err != nil {
		return err
	}
	fromLineTable(tab, byName)
	return nil
}

// fromLineTable sets the start line of the functions of byName that tab
// has an entry for, and removes them from byName.
func fromLineTable(tab *gosym.Table, byName map[string][]*profile.Function) {
	for i := range tab.Funcs {
		sym := &tab.Funcs[i]
		fns := byName[sym.Name]
		if len(fns) == 0 {
			continue
		}
		if _, line, _ := tab.PCToLine(sym.Entry); line > 0 {
			for _, fn := range fns {
				fn.StartLine = int64(line)
			}
			delete(byName, sym.Name)
		}
	}
}

// fromDWARF sets the start line of the functions of byName that the
// DWARF data of f, the executable at binary, declares, and removes them
// from byName.
func fromDWARF(f *elf.File, binary string, byName map[string][]*profile.Function) error {
	names := make(map[string]bool, len(byName))
	for name := range byName {
		names[name] = true
	}
	lines, err := elfsym.DeclLines(f, names)
	if err != nil {
		return fmt.Errorf("pprof: start lines: %s: %w", binary, err)
	}
	for name, line := range lines {
		for _, fn := range byName[name] {
			fn.StartLine = int64(line)
		}
		delete(byName, name)
	}
	return nil
}
