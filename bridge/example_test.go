package bridge_test

import (
	"context"
	"fmt"
	"log"

	"github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/bridge/mcpconfig"
	"github.com/indusagi/induscode/deck"
)

// Graft the MCP servers configured for a project onto its deck and call
// one of their tools.
func Example() {
	ctx := context.Background()
	servers, warnings := mcpconfig.Load("/path/to/project")
	for _, w := range warnings {
		log.Println("mcp:", w)
	}
	fleet := bridge.Mount(ctx, servers, bridge.Options{
		Dir:        "/path/to/project",
		LedgerPath: "/path/to/project/.indusvx/ledger.jsonl",
	})
	defer fleet.Close()
	for _, st := range fleet.Status() {
		if st.State != bridge.Ready {
			log.Printf("mcp server %s: %s", st.Name, st.LastError)
		}
	}

	d, err := deck.Provision(deck.All, deck.Setup{Dir: "/path/to/project"})
	if err != nil {
		log.Fatal(err)
	}
	if err := d.Graft(fleet.Tools()...); err != nil {
		log.Println(err)
	}
	res := d.Box().Run(ctx, "github__create_issue", []byte(`{"title":"Found a bug"}`))
	fmt.Println(res.PlainText())
}
