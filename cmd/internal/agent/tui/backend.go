package tui

import (
	"context"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/provider"
)

// Backend is what the terminal drives: a *conductor.Conductor in the
// program (see Conductor), a stand-in in tests.
type Backend interface {
	Run(ctx context.Context, prompt string) (*conductor.Result, error)
	Compact(ctx context.Context) error
	SendMessage(ctx context.Context, text string) error
	SetModel(ctx context.Context, id string) error
	SetThinking(ctx context.Context, level string) error
	SetMode(m conductor.PermissionMode) error
	Mode() conductor.PermissionMode
	AllowRule(rule string) error
	AllowedRules() []string
	Model() provider.ModelID
	// Messages is the conversation so far (a resumed one's on start).
	Messages() []provider.Message
	// ContextWindow is the model's window in tokens (0: unknown).
	ContextWindow() int64
	SessionID() string
	Tools() []provider.ToolDef
	// Dir is the workspace.
	Dir() string
	// Commands are the addons' commands the user runs by name.
	Commands() []addons.Command
	RunCommand(ctx context.Context, name string, args []string) (addons.ExecOutcome, error)
	// Checkpoints is the store of the files the prompts changed (nil: no
	// rewind).
	Checkpoints() checkpoint.Store
}

// Conductor adapts a conductor to Backend.
type Conductor struct{ *conductor.Conductor }

var _ Backend = Conductor{}

func (c Conductor) Dir() string { return c.Session().Dir() }

func (c Conductor) Commands() []addons.Command {
	if b := c.Session().Addons(); b != nil {
		return b.Commands
	}
	return nil
}

func (c Conductor) RunCommand(ctx context.Context, name string, args []string) (addons.ExecOutcome, error) {
	b := c.Session().Addons()
	if b == nil {
		return addons.ExecOutcome{}, errNoAddons
	}
	return b.RunCommand(ctx, name, args, c.Dir())
}

func (c Conductor) Checkpoints() checkpoint.Store { return checkpoint.ForWorkspace(c.Dir()) }
