package stacktab

import (
	"encoding/binary"

	"github.com/gotachyon/profiler/export/limits"
)

// DefaultMaxFrames bounds the frames an export keeps across its distinct
// stacks when its Budget's limit is 0: each costs 8 bytes here (a key and a
// copy) and some 20 more in an exporter's own structures (pprof's location
// lists, its encoding), so 4 M frames is about 100 MiB in all, which fits a
// 1 GB address space. A file of many distinct deep stacks is small on disk
// (a stack is a frame pushed onto the previous one) and would otherwise
// take gigabytes. Real profiles hold far fewer: a few thousand distinct
// stacks some 30 frames deep.
const DefaultMaxFrames = 4 << 20

// Budget counts the frames an export keeps across its distinct stacks
// against a limit. The zero value allows DefaultMaxFrames.
type Budget struct {
	Limit int // 0 means DefaultMaxFrames
	held  int
}

// Add counts n more frames, or returns a *limits.Error (StackFrames) if
// they would pass the limit.
func (b *Budget) Add(n int) error {
	limit := b.Limit
	if limit <= 0 {
		limit = DefaultMaxFrames
	}
	if b.held+n > limit {
		return &limits.Error{Limit: limits.StackFrames, Max: int64(limit), Value: int64(b.held + n)}
	}
	b.held += n
	return nil
}

// Table assigns dense ids to distinct stacks in order of first appearance.
// The zero value is ready to use.
type Table struct {
	// Frames bounds the frames kept across distinct stacks.
	Frames Budget
	ids    map[string]uint32
	stacks [][]uint32
	key    []byte
}

// ID returns the id of stack, adding a copy of it if it is new, or a
// *limits.Error if that would pass the frame limit. It does not allocate
// for a stack already in the table.
func (t *Table) ID(stack []uint32) (uint32, error) {
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	t.key = t.key[:0]
	for _, i := range stack {
		t.key = binary.LittleEndian.AppendUint32(t.key, i)
	}
	if id, ok := t.ids[string(t.key)]; ok {
		return id, nil
	}
	if err := t.Frames.Add(len(stack)); err != nil {
		return 0, err
	}
	id := uint32(len(t.stacks))
	t.ids[string(t.key)] = id
	t.stacks = append(t.stacks, append([]uint32(nil), stack...))
	return id, nil
}

// Stack returns the stack with the given id; it must not be modified.
func (t *Table) Stack(id uint32) []uint32 { return t.stacks[id] }

// Len returns the number of distinct stacks.
func (t *Table) Len() int { return len(t.stacks) }
