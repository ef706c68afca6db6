// Package checkpoint writes a profile into one file that survives the
// death of its process: a Tachyon file written to a path is streamed into
// DataName in a directory, and every period the Writer makes the file so
// far a finished one in all but its last bytes (writer.Writer.Checkpoint)
// and records, in MarkName, where its records end and the header and
// tables that finish it there. The stream only ever grows after a
// checkpoint's end, so a process killed at any moment leaves that prefix
// intact; Finish, or the next run, joins the prefix and the mark into a
// finished file, copying the records as they are.
//
// Close finishes the stream itself, so that stopping costs what the last
// period wrote, not what the whole run did: the file is renamed into place
// by the caller.
//
// The mark is read as untrusted input: its size is checked against the
// file's before anything is allocated, a checksum covers it, and its
// record end must lie inside the stream; errors name the file and what is
// wrong with it.
package checkpoint
