// Command tachyon inspects, checks and converts Tachyon v2 profiles.
//
// Usage:
//
//	tachyon <command> [flags] [args]
//
// Run "tachyon help" for the list of commands. Exit status: 0 success, 1 bad
// input (the message names the file and the byte offset), 2 usage error.
package main
