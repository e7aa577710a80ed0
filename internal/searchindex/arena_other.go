//go:build !linux

package searchindex

func mapRegion(n int, _ bool) []byte { return make([]byte, n) }

func unmapRegion([]byte) {}
