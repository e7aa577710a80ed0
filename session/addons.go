package session

// Addons in the session, kept apart so the boot path in session.go
// changes only by a few calls.

import (
	"context"
	"fmt"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/internal/jail"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// loadAddons loads the workspace's addons (unless opts.NoAddons) and the
// host program's own (opts.Addons), with handles bound to the session:
// Exec runs through the session's shell engine, so a command's processes
// are a process group the session stops. Faults become warnings.
func (s *Session) loadAddons(ctx context.Context) {
	if s.opts.NoAddons && len(s.opts.Addons) == 0 && !s.opts.ClaudeHooks {
		return
	}
	env := s.base.Env()
	grants := s.workspaceGrants()
	handles := &addons.Handles{
		SendMessage: s.opts.Handles.SendMessage,
		SetModel:    s.opts.Handles.SetModel,
		SetThinking: s.opts.Handles.SetThinking,
		Exec: func(ctx context.Context, command string, args []string) (addons.ExecOutcome, error) {
			// A workspace addon's command runs under its grants; the host
			// program's own addons under the session's mode.
			var in shell.ExecInput
			if g, ok := grants[addons.CommandAddon(ctx)]; ok {
				in.Sandbox = s.grantPolicy(g.grant, g.file)
			}
			r, err := shell.EngineOf(env).ExecInput(ctx, command, args, s.dir, 0, in)
			out := addons.ExecOutcome{Stdout: r.Stdout, Stderr: r.Stderr, Code: r.Code}
			if r.Stopped != "" {
				out.Stderr += fmt.Sprintf("[stopped: %s]\n", r.Stopped)
			}
			return out, err
		},
	}
	hopts, approved := s.sessionHooks(shell.EngineOf(env))
	loader := manifest.Loader{Hooks: approved.hookBinder(hopts)}
	// Tier-1 ([process]) addons, whose processes the session stops at
	// Close, start only once approved; other manifests go to the Tier-0
	// loader.
	var h *addons.Host
	procs := rpc.NewLoader(rpc.Options{Workspace: s.dir, Fallback: loader, Report: func(f *addons.Fault) { h.Report(f) },
		// The grant approved with the process, not the one loaded.
		Sandbox: func(file string, _ *manifest.SandboxDecl) *jail.Policy {
			return s.grantPolicy(approved.grantOf(file), file)
		},
		// Its code as approved, read afresh before every start.
		Check: approved.checkProcess})
	s.addonProcs = procs
	h = addons.NewHost(addons.HostOptions{Loader: approved.Loader(procs, loader), Handles: handles, Log: s.opts.Framework.Log})
	h.OnFault(func(f *addons.Fault) { s.warn(f.Error()) })
	if !s.opts.NoAddons {
		for _, src := range addons.Sources(addons.Discovery{Workspace: s.dir}) {
			h.LoadOne(ctx, src)
		}
		if len(approved.guards(AddonHooks)) > 0 {
			h.LoadAddon(&addons.Addon{ID: AddonHooksGuard, Register: func(api addons.API) error {
				approved.registerGuards(api, AddonHooks)
				return nil
			}})
		}
	}
	if s.opts.ClaudeHooks {
		// The user's own hooks run first, as Claude Code runs them.
		run := append(s.userClaudeHooks(), approved.claudeHooks()...)
		if guards := approved.guards(ClaudeHooks); len(run) > 0 || len(guards) > 0 {
			h.LoadAddon(&addons.Addon{ID: ClaudeHooksAddon, Register: func(api addons.API) error {
				approved.registerGuards(api, ClaudeHooks)
				if len(run) > 0 {
					hooks.NewSet(api.ID(), run, hopts).Register(api)
				}
				return nil
			}})
		}
	}
	for _, a := range s.opts.Addons {
		h.LoadAddon(a)
	}
	s.addons = h.Bundle()
	if s.addons.Dispatch.Has(addons.ShellEnv) {
		// shell:env: transforms may add or remove variables of every
		// command the session's shell engine starts.
		d := s.addons.Dispatch
		shell.EngineOf(env).PrepareEnv(func(vars map[string]string) map[string]string {
			return d.Dispatch(context.Background(), addons.ShellEnv, addons.ShellPayload{Env: vars}).Payload.(addons.ShellPayload).Env
		})
	}
}

// Addons is the bundle of the session's addons: commands, gates, tools,
// faults. It is nil when the session loaded none (NoTools, NoAddons).
func (s *Session) Addons() *addons.Bundle { return s.addons }

// fire dispatches a lifecycle event to the session's addons.
func (s *Session) fire(ctx context.Context, e addons.Event) {
	if s.addons != nil {
		s.addons.Dispatch.Dispatch(ctx, e, addons.LifecyclePayload{Session: s.opts.Name, Agent: s.opts.Agent})
	}
}

// addonTools are the addon tools the profile and --tools admit; the
// others are noted as omitted.
func (s *Session) addonTools() []tool.Tool {
	if s.addons == nil {
		return nil
	}
	var out []tool.Tool
	for _, t := range s.addons.Tools {
		if ok, why := admitGraft(t, s.opts.Profile, s.opts.Tools); ok {
			out = append(out, t)
		} else {
			s.omitted = append(s.omitted, Omission{Name: t.Spec().Name, Reason: why})
		}
	}
	return out
}

// closeAddons stops the processes of Tier-1 addons, after
// session:end reached them.
func (s *Session) closeAddons() error {
	if s.addonProcs == nil {
		return nil
	}
	return s.addonProcs.Close()
}
