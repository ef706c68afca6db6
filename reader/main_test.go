package reader_test

import (
	"os"
	"testing"
)

// TestMain removes the files the decode benchmarks wrote.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
