// Package ownnet makes the goroutines that dial, read and write a
// connection the profiler opens itself (an uploader's) the profiler's, in
// package own, until the connection closes. It is apart from own so that
// a program that does not upload does not link package net.
package ownnet
