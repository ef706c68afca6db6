// Package elfsym reads the Go symbol and line table (.gopclntab) of an ELF
// executable, for the exporters that map between source lines and program
// counters without running the program: dcpi (leaf lines to addresses)
// and nytprof (functions to their declaration lines).
//
// The table is the one debug/gosym builds; this package only finds its
// sections, so that every exporter reads a binary the same way and says
// the same thing about one that is not a Go binary.
package elfsym
