// Package elfsym reads the Go symbol and line table (.gopclntab) of an ELF
// executable, for the exporters that map between source lines and program
// counters without running the program: dcpi (leaf lines to addresses),
// nytprof and pprof (functions to their start lines). StartLines takes a
// function's declaration line from DWARF (DeclLines), which also knows the
// functions the compiler inlined everywhere, absent from the line table,
// else the line of the function's entry in the line table.
//
// The table is the one debug/gosym builds; this package only finds its
// sections, so that every exporter reads a binary the same way and says
// the same thing about one that is not a Go binary.
package elfsym
