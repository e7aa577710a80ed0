//go:build !amd64 || purego

package linematch

// haveFoldPair: no vector loop here; indexFoldPair is not used.
var haveFoldPair = false

func foldPairAVX2(b []byte, off int, c1, m1, c2, m2 byte) int { return ^0 }
