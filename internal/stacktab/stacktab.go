package stacktab

import (
	"strings"
	"unsafe"

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
}

// ID returns the id of stack, adding a copy of it if it is new, or a
// *limits.Error if that would pass the frame limit. It does not allocate
// for a stack already in the table.
func (t *Table) ID(stack []uint32) (uint32, error) {
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	k := Key(stack)
	if id, ok := t.ids[k]; ok {
		return id, nil
	}
	if err := t.Frames.Add(len(stack)); err != nil {
		return 0, err
	}
	id := uint32(len(t.stacks))
	t.ids[strings.Clone(k)] = id
	t.stacks = append(t.stacks, append([]uint32(nil), stack...))
	return id, nil
}

// Key views stack's memory as a string, to look it up without copying:
// every stack of a file may be a new record 65,536 frames deep, and
// encoding each frame into a key cost some 15 times the lookup itself
// (4.6 s of pprof's 4.7 s on 10,001 such samples in an 893-byte file).
// Keys are compared only within this process, so byte order does not
// matter; the string aliases stack and must be cloned to be kept.
func Key(stack []uint32) string {
	return unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(stack))), 4*len(stack))
}

// Stack returns the stack with the given id; it must not be modified.
func (t *Table) Stack(id uint32) []uint32 { return t.stacks[id] }

// Len returns the number of distinct stacks.
func (t *Table) Len() int { return len(t.stacks) }

// Cache finds the id a caller gave a stack of a file's frame indices
// (Key), so that a deep stack read before is not resolved frame by frame
// again. It holds stacks of CacheMinDepth frames or more only, at most
// CacheFrames frames of them, and starts afresh past them: it bounds
// memory, not correctness. A shallow stack costs less to resolve than to
// keep: a file of a million one-frame stacks would hold a million keys.
type Cache struct {
	ids    map[string]uint32
	frames int
}

const (
	// CacheMinDepth is the depth from which a Cache holds a stack.
	CacheMinDepth = 64
	// CacheFrames bounds the frames of the keys a Cache holds.
	CacheFrames = 1 << 22
)

// Get returns the id of stack, if the cache holds it.
func (c *Cache) Get(stack []uint32) (uint32, bool) {
	if len(stack) < CacheMinDepth {
		return 0, false
	}
	id, ok := c.ids[Key(stack)]
	return id, ok
}

// Put records id as stack's, if stack is deep enough to hold.
func (c *Cache) Put(stack []uint32, id uint32) {
	if len(stack) < CacheMinDepth {
		return
	}
	if c.ids == nil || c.frames+len(stack) > CacheFrames {
		c.ids, c.frames = make(map[string]uint32), 0
	}
	c.ids[strings.Clone(Key(stack))] = id
	c.frames += len(stack)
}
