package jsonline

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Lines come trimmed and blank ones not at all; an over-long line is
// skipped whole with the id of the response it was, and reading goes on
// after it; a last line without a newline comes before the end.
func TestReaderSkipsOverLongLinesAndGoesOn(t *testing.T) {
	t.Parallel()
	big := `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", 200<<10) + `"}}`
	in := "  first \n\n" + big + "\n" + strings.Repeat("y", 100) + "\nsecond\nlast"
	r := NewReader(strings.NewReader(in), 64)
	want := []string{"first", "too long 7", "too long ", "second", "last"}
	for i, w := range want {
		line, err := r.Next()
		var tl *TooLongError
		got := string(line)
		if errors.As(err, &tl) {
			got = "too long " + string(tl.ResponseID)
			if tl.Max != 64 || tl.Size < 64 {
				t.Errorf("line %d: %+v; want size over the limit of 64", i, tl)
			}
		} else if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF again", err)
	}
}

func TestTooLongErrorSaysWhat(t *testing.T) {
	t.Parallel()
	_, err := NewReader(strings.NewReader(strings.Repeat("z", 10)+"\n"), 4).Next()
	if err == nil || err.Error() != "a line of 11 bytes is over the 4-byte limit on one message; it was dropped" {
		t.Errorf("err = %v", err)
	}
}

// Whatever the input, Next ends with the input's end and never returns a
// line over the limit.
func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1}\n\n  x  \n"), 8)
	f.Add([]byte(strings.Repeat("a", 100)), 16)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		max = 1 + abs(max)%256
		r := NewReader(strings.NewReader(string(in)), max)
		for range len(in) + 2 {
			line, err := r.Next()
			if err == io.EOF {
				return
			}
			if len(line) > max {
				t.Fatalf("a line of %d bytes over the limit %d", len(line), max)
			}
		}
		t.Fatalf("no end after %d calls", len(in)+2)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// The scanner finds the top-level id of a response however the line is
// cut into pieces, and nothing for a request, a notification or non-JSON.
func TestFrameScanner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string // want "" means no response id
	}{
		{"id first", `{"jsonrpc":"2.0","id":12,"result":{"a":[1,2]}}`, "12"},
		{"id last", `{"result":{"id":99,"text":"a \"id\": 3"},"jsonrpc":"2.0","id":"req-7"}`, `"req-7"`},
		{"spaces", `{ "id" : 4 , "jsonrpc" : "2.0", "error": {} }`, "4"},
		{"nested id only", `{"jsonrpc":"2.0","result":{"id":3}}`, ""},
		{"request", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress"}`, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{}}`, ""},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"result":{}}`, ""},
		{"array", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, ""},
		{"key with escapes", `{"i\u0064":1,"jsonrpc":"2.0"}`, ""},
		{"not JSON", `Server starting, id: 3`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, piece := range []int{1, 3, len(tc.line)} {
				var sc frameScanner
				for rest := tc.line; rest != ""; {
					n := min(piece, len(rest))
					sc.feed([]byte(rest[:n]))
					rest = rest[n:]
				}
				if got := string(sc.responseID()); got != tc.want {
					t.Errorf("in pieces of %d: id %q, want %q", piece, got, tc.want)
				}
			}
		})
	}
}
