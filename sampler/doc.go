// Package sampler samples every goroutine of the running process, on and off
// CPU, into a Sink such as *writer.Writer.
package sampler
