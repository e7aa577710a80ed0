// Package induscode is a capability deck: the typed tool layer between a
// coding agent and the tools it calls.
//
// The packages, bottom to top:
//
//   - tool: the callable currency (Tool, Spec, Result, Env, ReadState) and
//     the typed constructor that infers a tool's schema from a Go struct.
//   - tools/...: the native tools (checklist: todo_read, todo_set; more as
//     they land).
//   - deck: the catalog of tool cards, profiles, provisioning and the Box
//     that runs calls by name.
//   - internal/cli: the indusr command line.
//
// Names from the Rust and Python editions' documents map to Go as follows:
// Card/Capability is tool.Tool; CapabilityCard is deck.Card; provision_deck
// is deck.Provision; ToolDeck is deck.Deck; into_tool_box is Deck.Box;
// DeckFault is *deck.Fault; DeckContext/DeckFramework are
// deck.Context/deck.Framework; ToolResult is tool.Result.
package induscode
