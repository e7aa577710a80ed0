package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestNewRefusesInvalidName(t *testing.T) {
	t.Parallel()
	run := func(context.Context, input, *tool.Env) tool.Result { return tool.Result{} }
	tests := []struct {
		name, tool string
		ok         bool
	}{
		{"plain", "read", true},
		{"server prefix", "srv__echo", true},
		{"64 characters", strings.Repeat("x", 64), true},
		{"empty", "", false},
		{"space", "read file", false},
		{"dot", "srv.echo", false},
		{"65 characters", strings.Repeat("x", 65), false},
		{"non-ASCII", "lés", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl, err := tool.New(tool.Spec{Name: tc.tool}, run)
			if tc.ok {
				if err != nil || tl == nil {
					t.Fatalf("New(%q) = %v, %v; want a tool", tc.tool, tl, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New(%q) accepted the name", tc.tool)
			}
			for _, want := range []string{`"` + tc.tool + `"`, tool.NameRule} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New(%q) error %q does not mention %s", tc.tool, err, want)
				}
			}
		})
	}
}

func TestCheckNameAgreesWithValidName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"read", "", "a b", strings.Repeat("y", 65), "a-b_C9"} {
		if (tool.CheckName(name) == nil) != tool.ValidName(name) {
			t.Errorf("CheckName(%q) = %v but ValidName = %v", name, tool.CheckName(name), tool.ValidName(name))
		}
	}
}
