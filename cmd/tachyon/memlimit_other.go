//go:build !linux

package main

// fitAddressSpace: only Linux's address-space limit is looked at.
func fitAddressSpace() {}
