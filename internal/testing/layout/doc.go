// Package layout holds the tests of conventions that hold across the
// module's packages rather than within one: each package's comment lives
// in its doc.go, every exported name has a doc comment, every package of
// the API has an Example test, and each fuzz target has a seed corpus in
// its package's testdata/fuzz. It has no code of its own.
package layout
