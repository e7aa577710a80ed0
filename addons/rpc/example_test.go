package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/tool"
)

// A host that loads a workspace's addons, process addons included, and
// runs a tool with their gates and interceptors around it. The loader
// hears the faults of running addons through the host; Close stops their
// processes.
func ExampleNewLoader() {
	ws := "/path/to/project"
	var host *addons.Host
	loader := rpc.NewLoader(rpc.Options{Workspace: ws, Report: func(f *addons.Fault) { host.Report(f) }})
	defer loader.Close()
	host = addons.NewHost(addons.HostOptions{Loader: loader})
	host.OnFault(func(f *addons.Fault) { log.Print(f) })
	bundle := host.LoadAll(context.Background(), addons.Discovery{Workspace: ws})

	bash := bundle.Wrap(&tool.Func{S: tool.Spec{Name: "bash", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("ran") }})
	res := bash.Run(context.Background(), json.RawMessage(`{"command":"git push --force"}`), &tool.Env{Dir: ws})
	fmt.Println(res.IsError, res.PlainText())
	for _, st := range loader.Statuses() {
		fmt.Println(st.ID, st.State, st.Crashes)
	}
}
