// Package speedscopetest locates the speedscope viewer installed from npm
// (package.json and package-lock.json here; install it with
// "npm ci --prefix internal/testing/speedscopetest") so that tests can open
// exported profiles in the real viewer. node_modules is not committed.
package speedscopetest
