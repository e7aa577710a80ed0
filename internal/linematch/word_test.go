package linematch

import (
	"slices"
	"strings"
	"testing"
)

func TestWordOption(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"log(x)",       // 0: whole word
		"logger",       // 1: prefix of a word
		"blog",         // 2: suffix of a word
		"a log here",   // 3
		"LOG",          // 4: only caseless
		"élog",         // 5: é is a letter
		"_log",         // 6: underscore is a word character
		"log_",         // 7
		"-log-",        // 8
		"logs and log", // 9: a later occurrence is whole
		"log",          // 10: the whole line
	}, "\n")
	tests := []struct {
		pattern  string
		o        Options
		wantLine []int
	}{
		{"log", Options{Word: true}, []int{0, 3, 8, 9, 10}},
		{"log", Options{Word: true, CaseInsensitive: true}, []int{0, 3, 4, 8, 9, 10}},
		{"lo.", Options{Word: true}, []int{0, 3, 8, 9, 10}},
		{"log(", Options{Word: true, Literal: true}, nil}, // "(" is followed by x, a word character
		{"log", Options{}, []int{0, 1, 2, 3, 5, 6, 7, 8, 9, 10}},
		{"og|lo", Options{Word: true}, nil},
	}
	data := []byte(text)
	lineOf := func(off int) int { return strings.Count(text[:off], "\n") }
	for _, tt := range tests {
		q, err := Compile(tt.pattern, tt.o)
		if err != nil {
			t.Fatalf("%q %+v: %v", tt.pattern, tt.o, err)
		}
		var got []int
		for _, l := range matcherLines(q, data) {
			got = append(got, lineOf(l[0]))
		}
		if !slices.Equal(got, tt.wantLine) {
			t.Errorf("%q %+v: lines %v, want %v", tt.pattern, tt.o, got, tt.wantLine)
		}
		// The prefilters and the DFA must agree with the plain regexp.
		if want := naiveLines(q.re, data); !slices.Equal(matcherLines(q, data), want) {
			t.Errorf("%q %+v: matcher disagrees with its regexp", tt.pattern, tt.o)
		}
	}
}

func TestWordOptionKeepsPatternErrors(t *testing.T) {
	t.Parallel()
	// Wrapped for whole words, "a)|(b" would be a valid expression.
	for _, p := range []string{"a)|(b", "(", "x)"} {
		if _, err := Compile(p, Options{Word: true}); err == nil {
			t.Errorf("Compile(%q, Word) accepted an invalid pattern", p)
		}
	}
	if _, err := Compile("a)|(b", Options{Word: true, Literal: true}); err != nil {
		t.Errorf("a literal is always valid: %v", err)
	}
}
