package zstdrun

import (
	"math"
	"math/bits"
)

// A block codes each kind of its sequences' codes (literal lengths,
// offsets, match lengths: the order of the modes byte and of the tables)
// in one of four modes (RFC 8878, 3.1.1.3.2.1): one code repeated (RLE),
// the predefined distribution, a distribution of its own written before
// the sequences (FSE_Compressed), or the last block's (Repeat). codeTables
// picks, per kind, the mode whose codes and table take the fewest bits.

const (
	kindLL = iota
	kindOF
	kindML
)

// Compression modes.
const (
	modePredefined = 0
	modeRLE        = 1
	modeCompressed = 2
	modeRepeat     = 3
)

// maxLogs are the largest accuracy logs the format allows per kind.
var maxLogs = [3]uint{9, 8, 9}

// The predefined tables, per kind, and their distributions.
var (
	predefNorm = [3][]int16{llNorm, ofNorm, mlNorm}
	predefLog  = [3]uint{6, 5, 6}
	predef     = [3]*fseTable{llTable, ofTable, mlTable}
)

// maxCode bounds the codes of every kind (match lengths go to 52).
const maxCode = 64

// codeTable is one kind's state in a frame: the block's counts, and the
// table of the last block with sequences when it was one of the frame's
// own, which the next block may repeat.
type codeTable struct {
	hist    [maxCode]uint32
	present []uint8 // codes with a count, in order
	norm    []int16 // scratch: a new table's counts
	own     fseTable
	ownNorm []int16
	ownOK   bool // own is the last block's table (Repeat_Mode)
}

// log2s[i] is log2(i), for the counts of tables of up to 1<<9 slots.
var log2s = func() (t [1<<9 + 1]float32) {
	for i := 1; i < len(t); i++ {
		t[i] = float32(math.Log2(float64(i)))
	}
	return t
}()

// count takes the block's codes of this kind.
func (k *codeTable) count(codes []uint8) {
	for _, s := range k.present {
		k.hist[s] = 0
	}
	k.present = k.present[:0]
	for _, s := range codes {
		if k.hist[s] == 0 {
			k.present = append(k.present, s)
		}
		k.hist[s]++
	}
	// In order, as the table's description lists the codes.
	for i := 1; i < len(k.present); i++ {
		for j := i; j > 0 && k.present[j] < k.present[j-1]; j-- {
			k.present[j], k.present[j-1] = k.present[j-1], k.present[j]
		}
	}
}

// cost returns the bits the block's codes take in a table of counts norm
// out of 1<<log, and false if the table cannot code one of them.
func (k *codeTable) cost(norm []int16, log uint) (float32, bool) {
	var b float32
	for _, s := range k.present {
		if int(s) >= len(norm) || norm[s] == 0 {
			return 0, false
		}
		c := max(norm[s], 1) // -1, less than one, has a slot
		b += float32(k.hist[s]) * (float32(log) - log2s[c])
	}
	return b, true
}

// choose picks the mode of this kind for a block of n sequences, appends
// what the block says of it after the modes byte (the RLE code, or a
// table's description) to out, and returns the mode and the table to
// code with (nil for RLE).
func (k *codeTable) choose(kind, n int, out []byte) (int, *fseTable, []byte) {
	if len(k.present) == 1 {
		k.ownOK = false
		return modeRLE, nil, append(out, k.present[0])
	}
	mode, bestBits := -1, float32(math.MaxFloat32)
	if b, ok := k.cost(predefNorm[kind], predefLog[kind]); ok {
		mode, bestBits = modePredefined, b
	}
	if k.ownOK {
		if b, ok := k.cost(k.ownNorm, k.own.log); ok && b < bestBits {
			mode, bestBits = modeRepeat, b
		}
	}
	log := k.newLog(kind, n)
	desc := len(out)
	if k.normalize(n, log) {
		out = appendNorm(out, k.norm, log)
		if b, _ := k.cost(k.norm, log); b+float32(8*(len(out)-desc)) < bestBits {
			k.own.build(k.norm, log)
			k.ownNorm = append(k.ownNorm[:0], k.norm...)
			k.ownOK = true
			return modeCompressed, &k.own, out
		}
		out = out[:desc]
	}
	switch mode {
	case modeRepeat:
		return modeRepeat, &k.own, out
	case modePredefined:
		k.ownOK = false
		return modePredefined, predef[kind], out
	}
	// Unreachable: the predefined distributions give every code a slot
	// up to the largest a block makes (lengths within maxBlock, offsets
	// within the window), so they code any block.
	panic("zstdrun: no table for a block's codes")
}

// newLog returns the accuracy log of a new table for n codes: small for
// few (its description is shorter), room for every code present.
func (k *codeTable) newLog(kind, n int) uint {
	log := uint(max(bits.Len(uint(n)), 2) - 2)
	log = max(log, uint(bits.Len(uint(2*len(k.present)))), 5)
	return min(log, maxLogs[kind])
}

// normalize sets k.norm to the block's counts scaled to 1<<log, each code
// present at least one, and reports whether they fit.
func (k *codeTable) normalize(n int, log uint) bool {
	last := k.present[len(k.present)-1]
	k.norm = grow(k.norm, int(last)+1)
	clear(k.norm)
	sum, big := 0, k.present[0]
	for _, s := range k.present {
		v := int((uint64(k.hist[s])<<log + uint64(n)/2) / uint64(n))
		v = max(v, 1)
		k.norm[s] = int16(v)
		sum += v
		if k.norm[s] > k.norm[big] {
			big = s
		}
	}
	fix := (1 << log) - sum
	if int(k.norm[big])+fix < 1 {
		return false
	}
	k.norm[big] += int16(fix)
	return true
}

// appendNorm appends the description of a table (RFC 8878, 4.1.1): its
// accuracy log, then each code's count plus one, in as many bits as the
// counts left to give can need, a zero count followed by how many more
// zeros follow, in 2-bit repeats.
func appendNorm(out []byte, norm []int16, log uint) []byte {
	b := bitWriter{out: out}
	b.add(uint64(log-5), 4)
	remaining := 1<<log + 1
	threshold := 1 << log
	nbits := log + 1
	for s := 0; remaining > 1; {
		c := int(norm[s])
		s++
		most := 2*threshold - 1 - remaining
		remaining -= max(c, -c)
		v := c + 1
		if v >= threshold {
			v += most
		}
		if v < most {
			b.add(uint64(v), nbits-1)
		} else {
			b.add(uint64(v), nbits)
		}
		for remaining < threshold {
			nbits--
			threshold >>= 1
		}
		if c == 0 {
			zeros := 0
			for s < len(norm) && norm[s] == 0 {
				zeros++
				s++
			}
			for ; zeros >= 3; zeros -= 3 {
				b.add(3, 2)
			}
			b.add(uint64(zeros), 2)
		}
	}
	b.flush()
	if b.n > 0 {
		b.out = append(b.out, byte(b.acc))
	}
	return b.out
}
