package elfsym

import (
	"debug/dwarf"
	"debug/elf"
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
