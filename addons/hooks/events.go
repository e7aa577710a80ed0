package hooks

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// Register records the set's handlers on api (see the package doc for
// which handler each event gets). A tool event whose hooks all name their
// tools plainly ("bash", "Edit|Write") is subscribed for those tools
// only, so the calls of other tools do not pass through the hooks at all.
func (s *Set) Register(api addons.API) {
	if tools, ok := s.toolsOf(addons.ToolBefore); ok {
		gate, rewrite := addons.Gater(s.beforeTool), addons.Transformer(s.rewriteInput)
		on(api, addons.ToolBefore, tools, gate, rewrite)
	}
	if tools, ok := s.toolsOf(addons.ToolAfter); ok {
		on(api, addons.ToolAfter, tools, addons.Transformer(s.afterTool))
	}
	for _, e := range []addons.Event{addons.SessionStart, addons.SessionEnd} {
		if s.has(e) {
			api.On(e, addons.Observer(s.observer(e, api.Handles())))
		}
	}
	for _, e := range []addons.Event{addons.SubagentStart, addons.SubagentStop} {
		if s.has(e) {
			api.On(e, addons.Observer(s.atSubagent(e)))
		}
	}
	if s.has(addons.TurnEnd) {
		api.On(addons.TurnEnd, addons.Observer(s.atStop(api.Handles())))
	}
	if s.has(addons.InputSubmit) {
		api.On(addons.InputSubmit, addons.Gater(s.beforePrompt))
		api.On(addons.InputSubmit, addons.Transformer(s.addPromptContext))
	}
	if s.has(addons.CompactBefore) {
		api.On(addons.CompactBefore, addons.Gater(s.beforeCompact))
	}
}

// on subscribes handlers to e, back to back for each tool of tools (every
// tool when tools is nil).
func on(api addons.API, e addons.Event, tools []string, handlers ...addons.Handler) {
	if tools == nil {
		for _, h := range handlers {
			api.On(e, h)
		}
		return
	}
	for _, t := range tools {
		for _, h := range handlers {
			api.OnTool(e, t, h)
		}
	}
}

func (s *Set) has(e addons.Event) bool {
	return slices.ContainsFunc(s.hooks, func(h Hook) bool { return h.Event == e })
}

// toolsOf returns the tools the hooks of e can concern: nil when one of
// them may match any tool; ok false when e has no hooks.
func (s *Set) toolsOf(e addons.Event) (tools []string, ok bool) {
	for _, h := range s.hooks {
		if h.Event != e {
			continue
		}
		ok = true
		if h.match.all || h.match.re != nil {
			return nil, true
		}
		for _, n := range h.match.names {
			if !slices.Contains(tools, OurToolName(n)) {
				tools = append(tools, OurToolName(n))
			}
		}
	}
	return tools, ok
}

// OurToolName undoes ClaudeToolName: read for Read, fs__read for
// mcp__fs__read; any other name is returned as given.
func OurToolName(name string) string {
	for ours, claude := range claudeNames {
		if claude == name {
			return ours
		}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok && strings.Contains(rest, "__") {
		return rest
	}
	return name
}

func (s *Set) input() Input {
	var id string
	if s.o.SessionID != nil {
		id = s.o.SessionID()
	}
	return Input{SessionID: id, Cwd: s.o.Dir}
}

// beforeTool is the PreToolUse gate. The strongest verdict wins, as in
// Claude Code: deny (exit 2, deny, block, continue false) over ask over
// allow. An ask goes to the host, which asks the user or refuses. An
// updatedInput of a hook that did not deny is handed to rewriteInput.
func (s *Set) beforeTool(ctx context.Context, p addons.Payload) addons.Decision {
	tp, ok := p.(addons.ToolPayload)
	if !ok {
		return addons.Decision{}
	}
	hooks := s.selectHooks(addons.ToolBefore, tp.Name)
	if len(hooks) == 0 {
		return addons.Decision{}
	}
	in := s.input()
	in.ToolName, in.ToolInput = tp.Name, tp.Args
	results := s.runAll(ctx, hooks, in)
	if ctx.Err() != nil {
		return addons.Decision{Stop: true, Reason: fmt.Sprintf("the call was cancelled while its PreToolUse hooks ran (%v)", context.Cause(ctx))}
	}
	var deny, ask, allow []string
	var updated json.RawMessage
	var rewriters []string
	for r, blocked := range s.answers(results) {
		if blocked != "" {
			deny = append(deny, blocked)
			continue
		}
		o := r.reply
		if stop, why := o.stopped(); stop {
			if why == "" {
				why = fmt.Sprintf("the PreToolUse hook %q asked to stop", r.hook.Command)
			}
			s.report(r.hook, "stopped the call: %s", why)
			deny = append(deny, why)
			continue
		}
		decision, why := "", o.Reason
		switch o.Decision {
		case "block":
			decision = Deny
		case "approve":
			decision = Allow
		}
		spec := o.HookSpecificOutput
		if spec != nil && spec.PermissionDecision != "" {
			decision, why = spec.PermissionDecision, spec.PermissionDecisionReason
		}
		switch decision {
		case Deny:
			if why == "" {
				why = fmt.Sprintf("denied by the PreToolUse hook %q", r.hook.Command)
			}
			deny = append(deny, why)
			continue
		case Ask:
			if why == "" {
				why = fmt.Sprintf("the PreToolUse hook %q wants the user to confirm this call", r.hook.Command)
			}
			ask = append(ask, why)
		case Allow:
			allow = append(allow, cmp.Or(why, fmt.Sprintf("allowed by the PreToolUse hook %q", r.hook.Command)))
		}
		if spec != nil && len(spec.UpdatedInput) > 0 {
			updated = spec.UpdatedInput
			if r.hook.Claude {
				updated = OurInput(tp.Name, updated)
			}
			rewriters = append(rewriters, r.hook.Command)
		}
	}
	switch {
	case len(deny) > 0:
		return addons.Decision{Stop: true, Reason: strings.Join(deny, "; ")}
	case len(ask) > 0:
		return addons.Decision{Ask: true, Reason: strings.Join(ask, "; ")}
	}
	if updated != nil {
		if len(rewriters) > 1 {
			s.report(results[0].hook, "%d hooks (%s) rewrote the input of one %s call; the last one's rewrite is used", len(rewriters), strings.Join(rewriters, ", "), tp.Name)
		}
		s.pending.put(pendingKey(tp.Name, tp.Args), updated)
	}
	if len(allow) > 0 {
		return addons.Decision{Allow: true, Reason: strings.Join(allow, "; ")}
	}
	return addons.Decision{}
}

// answers yields what the hooks that ran said: for one that exited 2 the
// reason it blocks with (never empty), for one that replied its reply (a
// result with a non-nil reply and no reason). A hook that failed is
// reported and left out, and so is one that exited 0 in silence.
func (s *Set) answers(results []result) iter.Seq2[result, string] {
	return func(yield func(result, string) bool) {
		for _, r := range results {
			if s.failed(r) {
				continue
			}
			if r.code == 2 {
				if !yield(r, blockReason(r)) {
					return
				}
				continue
			}
			if r.reply != nil && !yield(r, "") {
				return
			}
		}
	}
}

// rewriteInput applies the updatedInput beforeTool left for this call.
func (s *Set) rewriteInput(_ context.Context, p addons.Payload) addons.Payload {
	tp, ok := p.(addons.ToolPayload)
	if !ok || s.pending.empty() {
		return p
	}
	if v, ok := s.pending.take(pendingKey(tp.Name, tp.Args)); ok {
		tp.Args = v
	}
	return tp
}

// afterTool is the PostToolUse transform: what a hook has to tell the
// model (exit 2's stderr, a block's reason, additionalContext, a stop's
// reason) is added to the result, after the tool's own blocks. The tool
// has run, so nothing is undone and the result keeps its isError.
func (s *Set) afterTool(ctx context.Context, p addons.Payload) addons.Payload {
	tp, ok := p.(addons.ToolPayload)
	if !ok || tp.Result == nil {
		return p
	}
	hooks := s.selectHooks(addons.ToolAfter, tp.Name)
	if len(hooks) == 0 {
		return p
	}
	resp, err := json.Marshal(*tp.Result)
	if err != nil {
		s.report(hooks[0], "the result of %s cannot be encoded for the hooks (%v); they did not run", tp.Name, err)
		return p
	}
	in := s.input()
	in.ToolName, in.ToolInput, in.ToolResponse = tp.Name, tp.Args, resp
	var notes []string
	for r, blocked := range s.answers(s.runAll(ctx, hooks, in)) {
		if blocked != "" {
			notes = append(notes, blocked)
			continue
		}
		o := r.reply
		if stop, why := o.stopped(); stop {
			if why == "" {
				why = "the hook asked to stop"
			}
			s.report(r.hook, "asked to stop: %s", why)
			notes = append(notes, why)
		}
		if o.Decision == "block" {
			notes = append(notes, cmp.Or(o.Reason, fmt.Sprintf("the PostToolUse hook %q flagged this result", r.hook.Command)))
		}
		if spec := o.HookSpecificOutput; spec != nil && spec.AdditionalContext != "" {
			notes = append(notes, spec.AdditionalContext)
		}
	}
	if len(notes) == 0 {
		return p
	}
	res := tool.Result{Blocks: slices.Clone(tp.Result.Blocks), IsError: tp.Result.IsError}
	for _, n := range notes {
		res.Blocks = append(res.Blocks, tool.TextBlock("PostToolUse hook: "+n))
	}
	tp.Result = &res
	return tp
}

// observer runs the hooks of a session event. They cannot stop the
// session: exit 2 and continue false are reported to the user. The
// additionalContext of a SessionStart hook goes to the model with the
// first prompt, through the send_message handle.
func (s *Set) observer(e addons.Event, h *addons.Handles) func(context.Context, addons.Payload) {
	return func(ctx context.Context, p addons.Payload) {
		if lp, _ := p.(addons.LifecyclePayload); lp.Agent != "" {
			return // a subagent's session: SubagentStart and SubagentStop are its hooks
		}
		in := s.input()
		if e == addons.SessionStart {
			in.Source = "startup"
		} else {
			in.Reason = "other"
		}
		for _, r := range s.runAll(ctx, s.selectHooks(e, ""), in) {
			if s.failed(r) {
				continue
			}
			if r.code == 2 {
				s.report(r.hook, "exited 2 (a session hook blocks nothing): %s", blockReason(r))
			} else if stop, why := r.reply.stopped(); r.reply != nil && stop {
				s.report(r.hook, "asked to stop (a session hook stops nothing): %s", why)
			} else if spec := r.reply.specific(); e == addons.SessionStart && spec != nil && spec.AdditionalContext != "" {
				s.send(ctx, h, r.hook, spec.AdditionalContext)
			}
		}
	}
}

// atSubagent runs the SubagentStart or SubagentStop hooks with the
// subagent's id, type and (at its stop) transcript. They observe: the
// subagent has started, or has answered, whatever they reply.
func (s *Set) atSubagent(e addons.Event) func(context.Context, addons.Payload) {
	return func(ctx context.Context, p addons.Payload) {
		lp, _ := p.(addons.LifecyclePayload)
		in := s.input()
		in.AgentID, in.AgentType = lp.AgentID, lp.Agent
		if e == addons.SubagentStop {
			inactive := false
			in.StopHookActive, in.AgentTranscriptPath = &inactive, lp.TranscriptPath
		}
		for _, r := range s.runAll(ctx, s.selectHooks(e, ""), in) {
			if s.failed(r) {
				continue
			}
			if r.code == 2 {
				s.report(r.hook, "exited 2 (a subagent hook blocks nothing): %s", blockReason(r))
			}
		}
	}
}

// send hands text to the model through the send_message handle.
func (s *Set) send(ctx context.Context, h *addons.Handles, hook *Hook, text string) {
	if h == nil || h.SendMessage == nil {
		s.report(hook, "has something for the model, and this host has no conversation to add it to: %s", excerpt([]byte(text)))
		return
	}
	if err := h.SendMessage(ctx, text); err != nil {
		s.report(hook, "its message for the model was not taken: %v", err)
	}
}

// atStop runs the Stop hooks at the turn:end where the agent stops.
// Exit 2 or a "block" keeps the agent going, with the reason as its next
// input (sent through the send_message handle); continue false lets it
// stop. stop_hook_active tells the hooks that the agent is already going
// on because of one of them.
func (s *Set) atStop(h *addons.Handles) func(context.Context, addons.Payload) {
	return func(ctx context.Context, p addons.Payload) {
		lp, ok := p.(addons.LifecyclePayload)
		if !ok || !lp.Stopping || lp.Agent != "" {
			// A subagent's stop is SubagentStop's, fired in the parent.
			return
		}
		in := s.input()
		active := s.stopActive.Load()
		in.StopHookActive = &active
		var goOn []string
		var hook *Hook
		for r, blocked := range s.answers(s.runAll(ctx, s.selectHooks(addons.TurnEnd, ""), in)) {
			switch {
			case blocked != "":
				goOn, hook = append(goOn, blocked), r.hook
			default:
				if stop, why := r.reply.stopped(); stop {
					s.report(r.hook, "asked to stop: %s", cmp.Or(why, "no reason given"))
					s.stopActive.Store(false)
					return
				}
				if r.reply.Decision == "block" {
					if r.reply.Reason == "" {
						s.report(r.hook, "blocked the stop without a reason, which gives the agent nothing to go on with; it stops")
						continue
					}
					goOn, hook = append(goOn, r.reply.Reason), r.hook
				}
			}
		}
		s.stopActive.Store(len(goOn) > 0)
		if len(goOn) > 0 {
			s.send(ctx, h, hook, "Stop hook: "+strings.Join(goOn, "\n\n"))
		}
	}
}

// beforePrompt is the UserPromptSubmit gate: exit 2, a block or continue
// false refuses the input.
func (s *Set) beforePrompt(ctx context.Context, p addons.Payload) addons.Decision {
	ip, ok := p.(addons.InputPayload)
	if !ok {
		return addons.Decision{}
	}
	in := s.input()
	in.Prompt = ip.Text
	var deny, context []string
	for r, blocked := range s.answers(s.runAll(ctx, s.selectHooks(addons.InputSubmit, ""), in)) {
		if why := refusal(r, blocked, "UserPromptSubmit"); why != "" {
			deny = append(deny, why)
		} else if spec := r.reply.HookSpecificOutput; spec != nil && spec.AdditionalContext != "" {
			context = append(context, spec.AdditionalContext)
		}
	}
	if len(deny) > 0 {
		return addons.Decision{Stop: true, Reason: strings.Join(deny, "; ")}
	}
	if len(context) > 0 {
		b, _ := json.Marshal(strings.Join(context, "\n\n"))
		s.pending.put(promptKey(ip.Text), b)
	}
	return addons.Decision{}
}

// refusal is why a gate hook's answer refuses what its event asked: exit
// 2 (blocked, already worded), a "block" decision or continue false, each
// with the hook's reason or one naming the hook; "" lets it through.
func refusal(r result, blocked, event string) string {
	switch {
	case blocked != "":
		return blocked
	case r.reply.Decision == "block":
		return cmp.Or(r.reply.Reason, fmt.Sprintf("blocked by the %s hook %q", event, r.hook.Command))
	}
	if stop, why := r.reply.stopped(); stop {
		return cmp.Or(why, fmt.Sprintf("the %s hook %q asked to stop", event, r.hook.Command))
	}
	return ""
}

func promptKey(text string) string { return pendingKey("\x00prompt", json.RawMessage(text)) }

// addPromptContext adds the additionalContext the UserPromptSubmit gate
// left for this prompt to the prompt the model sees.
func (s *Set) addPromptContext(_ context.Context, p addons.Payload) addons.Payload {
	ip, ok := p.(addons.InputPayload)
	if !ok || s.pending.empty() {
		return p
	}
	if v, ok := s.pending.take(promptKey(ip.Text)); ok {
		var extra string
		if json.Unmarshal(v, &extra) == nil && extra != "" {
			ip.Text += "\n\n" + extra
		}
	}
	return ip
}

// beforeCompact is the PreCompact gate: exit 2, a block or continue
// false keeps the conversation as it is.
func (s *Set) beforeCompact(ctx context.Context, p addons.Payload) addons.Decision {
	cp, ok := p.(addons.CompactPayload)
	if !ok {
		return addons.Decision{}
	}
	in := s.input()
	in.Trigger = "auto"
	if cp.Reason == "requested" {
		in.Trigger = "manual"
	}
	var deny []string
	for r, blocked := range s.answers(s.runAll(ctx, s.selectHooks(addons.CompactBefore, ""), in)) {
		if why := refusal(r, blocked, "PreCompact"); why != "" {
			deny = append(deny, why)
		}
	}
	if len(deny) > 0 {
		return addons.Decision{Stop: true, Reason: strings.Join(deny, "; ")}
	}
	return addons.Decision{}
}
