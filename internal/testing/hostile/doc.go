// Package hostile builds valid Tachyon files that are cheap on disk and
// costly to process — decompression bombs, many distinct deep stacks — for
// the tests that check every command and exporter stays within bounded
// memory and time. The files are generated, not committed.
package hostile
