package addons_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/tool"
)

// Load a workspace's addons and wrap a tool with them: the manifest's
// gate refuses the call, and the refusal names the addon and its reason.
func Example() {
	ws, _ := os.MkdirTemp("", "addons-example")
	defer os.RemoveAll(ws)
	dir := filepath.Join(ws, ".indus", "addons", "safety")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(`
id = "safety"
[[gate]]
event = "tool:before"
match-tool = "bash"
reason = "no shell in this repository"
`), 0o644)

	host := addons.NewHost(addons.HostOptions{Loader: manifest.Loader{}})
	host.OnFault(func(f *addons.Fault) { fmt.Println("fault:", f) })
	bundle := host.LoadAll(context.Background(), addons.Discovery{Workspace: ws})

	bash := bundle.Wrap(&tool.Func{S: tool.Spec{Name: "bash"}, Fn: nil})
	res := bash.Run(context.Background(), []byte(`{"command":"ls"}`), nil)
	fmt.Println(res.IsError, res.PlainText())
	// Output: true addon safety blocked the call of bash: no shell in this repository. The tool did not run; do not retry it unchanged.
}
