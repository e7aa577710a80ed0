//go:build !unix

package workspace

const nonBlock = 0
