package render

import (
	"errors"
	"strings"
	"testing"
)

// A tool still running after its call returned (an interrupted call)
// must not print behind the final message.
func TestTextStreamClosesWithTheCall(t *testing.T) {
	var out strings.Builder
	s := NewTextStream(&out)
	if s.Close() {
		t.Error("an unused stream says it was written")
	}
	s = NewTextStream(&out)
	if _, err := s.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if !s.Close() {
		t.Error("a used stream says it was not written")
	}
	if _, err := s.Write([]byte("late\n")); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("write after the call: err = %v", err)
	}
	if out.String() != "line\n" {
		t.Errorf("output %q", out.String())
	}
}
