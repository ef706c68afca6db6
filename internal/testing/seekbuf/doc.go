// Package seekbuf provides Buffer, an in-memory io.WriteSeeker that is also an
// io.ReaderAt, for tests that write a Tachyon file without touching the
// disk. (The HTTP handler writes to a temporary file, and WithExport
// refuses a WithOutput writer that is not an io.ReaderAt, so no code of
// the profiler's uses it.) Discard is the io.WriteSeeker of the
// benchmarks that write a file only to time its encoding.
package seekbuf
