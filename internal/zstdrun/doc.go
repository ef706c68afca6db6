// Package zstdrun writes zstd frames (RFC 8878) whose content is a series
// of units, each some literal bytes followed by a short pattern repeated n
// times: what a Tachyon REPEAT record of a parked goroutine is (the
// record's header, then one (delta, status) pair per sample, all alike).
//
// It takes its matches from the units instead of searching the content
// for them. A unit's repeats are one match at the pattern's distance, and
// a unit equal to an earlier one but for its first bytes (the next
// parked goroutine's record: another thread id, the same run) is its
// differing bytes and one match of the earlier one. A unit whose literals
// differ from the earlier one's in a few places (a goroutine's first
// records, which name its thread id twice) also takes its stretches of 16
// bytes or more that equal the earlier one's as matches. So its work grows with
// the units and their literal bytes, not with the bytes the repeats expand
// to, which a general encoder such as klauspost/compress's reads and
// compares one by one. A zstd frame's content checksum would read them
// too, so a frame has none: a checksum frame of its bytes as written
// follows it (package framesum), which the reader checks.
//
// A block's literals are Huffman-coded with klauspost/compress/huff0 when
// there are 1 KiB of them or more and that is smaller (a block of parked
// goroutines' records has a byte or two of each thread id, which a
// Huffman code does not shorten). Each kind of the sequences' codes takes,
// per block, the mode that costs the fewest bits (tables.go): one code
// repeated (RLE: parked goroutines' records of one length), the format's
// predefined distribution, a table of the block's own, or the last
// block's again. A unit is said to repeat the latest of its kind (the
// same pattern and count) whose literals were as long, else the latest of
// its kind, among the last eight units so kept. The frames
// declare a 128 KiB window, as the writer's others do, and any zstd
// decoder reads them: the tests check them with klauspost's decoder and
// the reference zstd tool.
package zstdrun
