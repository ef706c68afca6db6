// Package proftest builds, reads and checks profiles in tests: it writes and
// opens test profiles, reads the public vectors' text files and decodes
// samples into their schema, and checks profiles written by the profiler
// with the Go reader's strict validation and the shared independent
// reference validator (tachyon_ref.py, which needs python3 and zstd: skipped
// locally when absent, required under CI).
package proftest
