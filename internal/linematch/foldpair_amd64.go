//go:build !purego

package linematch

import "golang.org/x/sys/cpu"

// haveFoldPair: foldPairAVX2 can run here.
var haveFoldPair = cpu.X86.HasAVX2

// foldPairAVX2 is indexFoldPair's vector loop, 32 positions a step; see
// foldpair_amd64.s.
//
//go:noescape
func foldPairAVX2(b []byte, off int, c1, m1, c2, m2 byte) int
