package elfsym

import (
	"debug/dwarf"
	"debug/elf"
	"debug/gosym"
	"fmt"
)

// DeclLines returns the declaration line of each function in names that
// the DWARF data of the ELF file f describes (DW_AT_decl_line of its
// subprogram), including the functions the compiler inlined everywhere,
// which have no entry in the line table. It returns an empty map and no
// error for a file without DWARF (linked with -ldflags=-w).
func DeclLines(f *elf.File, names map[string]bool) (map[string]int, error) {
	lines := map[string]int{}
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return lines, nil
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("reading DWARF: %w", err)
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("reading DWARF: %w", err)
		}
		if e == nil {
			return lines, nil
		}
		if e.Tag == dwarf.TagCompileUnit {
			continue // its children are the functions
		}
		if e.Tag == dwarf.TagSubprogram {
			name, _ := e.Val(dwarf.AttrName).(string)
			if line, ok := e.Val(dwarf.AttrDeclLine).(int64); ok && line > 0 && names[name] {
				lines[name] = int(line)
			}
		}
		r.SkipChildren()
	}
}

// StartLines returns the start line of each function in names that the
// executable f, whose Go line table is tab, knows: the declaration line
// from DWARF when f has it (DeclLines: every function, those the compiler
// inlined everywhere too), else the line of the function's entry in the
// line table, which is the declaration's for a function with a frame (its
// prologue) and the first statement's for a leaf without one. A function
// inlined everywhere in a binary without DWARF has no start line.
func StartLines(f *elf.File, tab *gosym.Table, names map[string]bool) (map[string]int, error) {
	lines, err := DeclLines(f, names)
	if err != nil {
		return nil, err
	}
	for i := range tab.Funcs {
		fn := &tab.Funcs[i]
		if _, done := lines[fn.Name]; done || !names[fn.Name] {
			continue
		}
		if _, line, _ := tab.PCToLine(fn.Entry); line > 0 {
			lines[fn.Name] = line
		}
	}
	return lines, nil
}
