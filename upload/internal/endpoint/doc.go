// Package endpoint parses the URL of a profile store without letting its
// credentials reach a message, and holds the bounds on what the uploader
// reads from a store.
package endpoint
