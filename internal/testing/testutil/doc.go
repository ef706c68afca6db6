// Package testutil holds helpers shared by the module's tests: finding the
// public vectors copied into the repository, the shared tools beside it,
// requiring external programs, and running a test alone in a child
// process. Locally a missing tool or program skips the
// test; under CI (CI=true) it fails it, because CI always provides them. The
// vectors are part of the repository, so a test that needs them never skips.
package testutil
