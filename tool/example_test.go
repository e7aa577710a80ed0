package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

type greetInput struct {
	Name  string `json:"name" jsonschema:"Who to greet."`
	Times int    `json:"times,omitempty" jsonschema:"How often."`
}

// greetSchema is a package value, so a tool built for every session infers
// its schema once.
var greetSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetDefault(s, "times", 1)
	tool.SetRange(s, "times", 1, 3)
})

func ExampleWithSchema() {
	greet := tool.Must(tool.New(tool.Spec{Name: "greet", Label: "Greet"},
		func(_ context.Context, in greetInput, _ *tool.Env) tool.Result {
			return tool.Textf("hello %s ×%d", in.Name, max(in.Times, 1))
		}, greetSchema))

	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(greet.Spec().InputSchema, &s)
	fmt.Println(string(s.Properties["times"]))
	fmt.Println(greet.Run(context.Background(), json.RawMessage(`{"name":"Ada","times":5}`), nil).IsError)
	fmt.Println(greet.Run(context.Background(), json.RawMessage(`{"name":"Ada","times":2}`), nil).PlainText())
	// Output:
	// {"type":"integer","description":"How often.","default":1,"minimum":1,"maximum":3}
	// true
	// hello Ada ×2
}
