// Package hostilestore serves the answers of a hostile profile store, for the
// tests of the upload packages.
package hostilestore
