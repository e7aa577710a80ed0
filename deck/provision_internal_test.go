package deck

import (
	"errors"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestBuildFailures(t *testing.T) {
	t.Parallel()
	named := func(n string) tool.Tool { return &tool.Func{S: tool.Spec{Name: n}} }
	tests := []struct {
		name  string
		build func(Setup) tool.Tool
		want  string
	}{
		{"panics", func(Setup) tool.Tool { panic("no backend") }, "build panicked: no backend"},
		{"returns nil", func(Setup) tool.Tool { return nil }, "build returned no tool"},
		{"wrong name", func(Setup) tool.Tool { return named("other") }, `build returned a tool named "other"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := build(Card{ID: "card", Build: tc.build}, Setup{})
			if !errors.Is(err, ErrBuildFailed) || !strings.Contains(err.Error(), `"card"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a build-failed fault naming the card and %q", err, tc.want)
			}
		})
	}
	if got, err := build(Card{ID: "ok", Build: func(Setup) tool.Tool { return named("ok") }}, Setup{}); err != nil || got == nil {
		t.Errorf("good build: %v, %v", got, err)
	}
}
