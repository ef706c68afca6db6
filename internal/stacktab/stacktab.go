// Package stacktab numbers distinct stacks of frame indices, for exporters
// that aggregate samples by stack.
package stacktab

import "encoding/binary"

// Table assigns dense ids to distinct stacks in order of first appearance.
// The zero value is ready to use.
type Table struct {
	ids    map[string]uint32
	stacks [][]uint32
	key    []byte
}

// ID returns the id of stack, adding a copy of it if it is new. It does not
// allocate for a stack already in the table.
func (t *Table) ID(stack []uint32) uint32 {
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	t.key = t.key[:0]
	for _, i := range stack {
		t.key = binary.LittleEndian.AppendUint32(t.key, i)
	}
	if id, ok := t.ids[string(t.key)]; ok {
		return id
	}
	id := uint32(len(t.stacks))
	t.ids[string(t.key)] = id
	t.stacks = append(t.stacks, append([]uint32(nil), stack...))
	return id
}

// Stack returns the stack with the given id; it must not be modified.
func (t *Table) Stack(id uint32) []uint32 { return t.stacks[id] }

// Len returns the number of distinct stacks.
func (t *Table) Len() int { return len(t.stacks) }
