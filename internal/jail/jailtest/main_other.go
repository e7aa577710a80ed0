//go:build !linux

package jailtest

// Main does nothing where there is no sandbox to probe.
func Main() {}
