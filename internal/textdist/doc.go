// Package textdist measures how far apart two names are, for the "did you
// mean" of a misspelt environment variable or command.
package textdist
