// Command testsum reads the events of "go test -json" on its standard input
// and prints what go test prints without -json: build errors, the output of
// failing tests, and one line per package (ok, FAIL, or ? when it has no
// test files). Then it prints one more line listing the tests that skipped,
// grouped by reason, or saying that none did: go test shows nothing of a
// passing package, so without that line a skipped test would look like a
// passed one.
//
//	go test -json ./... | go run ./.ci/testsum
//
// It exits with status 1 when a build or a test failed, when a package
// started but never reported a result, when a line of its input is not an
// event, when its input holds no event at all (go test could not start),
// or, under CI=true, when a test skipped.
package main
