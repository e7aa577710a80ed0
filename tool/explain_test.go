package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

type todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
}

type explainInput struct {
	Path     string          `json:"path"`
	Limit    int             `json:"limit,omitempty"`
	Todos    []todo          `json:"todos,omitempty"`
	Grid     [][]int         `json:"grid,omitempty"`
	ByName   map[string]todo `json:"by_name,omitempty"`
	MaxDepth int             `json:"max_depth,omitempty"`
}

// TestValidationErrorsNameTheItemAndHint pins the two things a model
// needs to correct a call: which array item is wrong (its index, not
// "[]"), and which known property an unknown one was probably meant to be.
func TestValidationErrorsNameTheItemAndHint(t *testing.T) {
	t.Parallel()
	tl, err := tool.New(tool.Spec{Name: "explain"}, func(context.Context, explainInput, *tool.Env) tool.Result { return tool.Text("ok") })
	if err != nil {
		t.Fatal(err)
	}
	const ok3 = `{"content":"a","status":"x"},{"content":"b","status":"x"}`
	tests := []struct {
		name, input string
		want        []string // substrings of the error
		not         []string // must not appear
	}{
		{"item index", `{"path":"a","todos":[` + ok3 + `,{"content":"c","status":3}]}`,
			[]string{"field todos[2].status: type"}, []string{"todos[]"}},
		{"first item", `{"path":"a","todos":[{"content":"c","status":3}]}`,
			[]string{"field todos[0].status"}, nil},
		{"required in an item", `{"path":"a","todos":[` + ok3 + `,{"content":"c"}]}`,
			[]string{`field todos[2]: required: missing properties: ["status"]`}, nil},
		{"nested arrays", `{"path":"a","grid":[[1,2],[3,"x"]]}`,
			[]string{"field grid[1][1]: type"}, nil},
		{"map value", `{"path":"a","by_name":{"k":{"content":"c","status":"x"},"z":{"content":"c","status":7}}}`,
			[]string{"field by_name.z.status: type"}, nil},
		{"word of the name", `{"file_path":"a"}`,
			[]string{`unexpected additional properties ["file_path"]`, `did you mean "path" instead of "file_path"?`}, nil},
		{"case and separators", `{"path":"a","maxDepth":2}`,
			[]string{`did you mean "max_depth" instead of "maxDepth"?`}, nil},
		{"typo", `{"path":"a","limt":2}`,
			[]string{`did you mean "limit" instead of "limt"?`}, nil},
		{"typo in an item", `{"path":"a","todos":[` + ok3 + `,{"content":"c","status":"x","stauts":"y"}]}`,
			[]string{"field todos[2]: unexpected additional properties", `did you mean "status" instead of "stauts"?`}, nil},
		{"two unknown", `{"path":"a","PATH2":1,"limits":1}`,
			[]string{`"limit" instead of "limits"`}, nil},
		{"nothing close", `{"path":"a","bogus":1}`,
			[]string{`unexpected additional properties ["bogus"]`}, []string{"did you mean"}},
		{"short names are not matched by distance", `{"path":"a","x":1}`,
			nil, []string{"did you mean"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tl.Run(context.Background(), json.RawMessage(tc.input), tool.NewEnv(t.TempDir()))
			if !res.IsError {
				t.Fatalf("accepted %s", tc.input)
			}
			msg := res.PlainText()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(msg, w) {
					t.Errorf("error %q contains %q", msg, w)
				}
			}
		})
	}
}
