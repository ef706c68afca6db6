// Package regfile opens a file for reading only if it is a regular file,
// without ever waiting on a FIFO or a device: the reader and the NYTProf
// source embedding both open paths that a profile's author may choose.
package regfile
