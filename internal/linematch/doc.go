// Package linematch finds the lines of a buffer that a regular expression
// (RE2 syntax, Go's regexp) matches, at ripgrep's speed: Compile analyses
// the pattern once (and keeps the last few queries for the next search
// that asks for them), and each worker's Matcher runs the cheapest check
// that is exact for it.
//
// The parts, one file each: literal.go extracts from the parsed pattern
// the strings every match must contain; prefilter.go finds them with a
// vectorised scan for their rarest byte (both cases of it for a
// case-insensitive literal), and pairfinder.go a case-insensitive one by
// its two rarest bytes at once, in AVX2 assembly where the processor has
// it (foldpair_amd64.s: Go's bytes package has no search by a pair of
// bytes or in folded case); seq.go checks a fixed byte-class prefix at
// each candidate; matcher.go runs the full pattern only on the lines the
// prefilter proposes; dfa.go is a lazy DFA for patterns with no literal at
// all. The DFA is written here because Go's regexp has none.
package linematch
