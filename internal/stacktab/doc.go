// Package stacktab numbers distinct stacks, for exporters that aggregate
// samples by stack, and bounds the frames they keep. A stack is a slice of
// uint32: frame-table indices (pprof, speedscope) or ids of interned names
// (spx); the table gives each distinct one a dense id.
package stacktab
