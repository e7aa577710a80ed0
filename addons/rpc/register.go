package rpc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// register maps what the addon declared onto the addons API: each
// handler, interceptor, command and tool becomes an ordinary one whose
// body is a call to the process, so the host, dispatcher and chain treat
// it like any other. onError is the manifest's per-gate override.
func (s *supervisor) register(api addons.API, d *Declarations, onError map[string]string) {
	for _, h := range d.Handlers {
		e, _ := addons.ParseEvent(h.Event) // checked with the declarations
		k, _ := parseKind(h.Kind)
		var hd addons.Handler
		switch k {
		case addons.Observe:
			hd = addons.Observer(s.observer(h, e))
		case addons.Transform:
			hd = addons.Transformer(s.transformer(h, e))
		case addons.Gate:
			hd = addons.Gater(s.gater(h, e, gateAllows(h, onError)))
		}
		if h.Tool != "" {
			api.OnTool(e, h.Tool, hd)
		} else {
			api.On(e, hd)
		}
	}
	for _, ic := range d.Interceptors {
		var enter func(context.Context, addons.EnterContext) addons.EnterOutcome
		var exit func(context.Context, addons.ExitContext) addons.ExitOutcome
		if ic.Enter {
			enter = s.enterStage(ic)
		}
		if ic.Exit {
			exit = s.exitStage(ic)
		}
		api.InterceptTool(addons.Match{Tool: ic.Tool}, enter, exit)
	}
	for _, c := range d.Commands {
		api.AddCommand(c.Name, c.Summary, s.commandRunner(c))
	}
	for _, t := range d.Tools {
		api.AddTool(s.addonTool(t))
	}
}

// gateAllows says whether a failing gate lets the event through: the
// manifest's word for this gate, else for every gate ("*"), else the
// declaration's, else no (gates fail closed).
func gateAllows(h HandlerDecl, onError map[string]string) bool {
	for _, v := range []string{onError[h.ID], onError["*"], h.OnError} {
		if v != "" {
			return v == "allow"
		}
	}
	return false
}

// concerns reports whether a handler narrowed to one tool is meant for p.
func concerns(h HandlerDecl, p addons.Payload) bool {
	tp, ok := p.(addons.ToolPayload)
	return h.Tool == "" || !ok || tp.Name == h.Tool
}

func (s *supervisor) eventParams(h HandlerDecl, e addons.Event, p addons.Payload) (EventParams, error) {
	raw, err := encodePayload(p)
	return EventParams{Handler: h.ID, Event: e.String(), Payload: raw}, err
}

// observer fails open: a failure is a fault, nothing more.
func (s *supervisor) observer(h HandlerDecl, e addons.Event) func(context.Context, addons.Payload) {
	return func(ctx context.Context, p addons.Payload) {
		if !concerns(h, p) {
			return
		}
		params, err := s.eventParams(h, e, p)
		if err == nil {
			err = s.notify(ctx, MethodObserve, params)
		}
		if err != nil {
			s.fault(addons.HandlerFault, fmt.Sprintf("observer %s of %s failed; it was skipped", h.ID, e), err)
		}
	}
}

// transformer fails open: on a failure the payload goes on unchanged.
func (s *supervisor) transformer(h HandlerDecl, e addons.Event) func(context.Context, addons.Payload) addons.Payload {
	return func(ctx context.Context, p addons.Payload) addons.Payload {
		if !concerns(h, p) {
			return p
		}
		params, err := s.eventParams(h, e, p)
		var res TransformResult
		if err == nil {
			err = s.call(ctx, MethodTransform, params, &res)
		}
		var out addons.Payload
		if err == nil {
			out, err = decodePayload(e, res.Payload)
		}
		if err != nil {
			s.fault(addons.HandlerFault, fmt.Sprintf("transform %s of %s failed; the payload went on unchanged", h.ID, e), err)
			return p
		}
		return out
	}
}

// gater fails closed unless allow: a gate that cannot answer stops the
// event, with a reason that says how to change that.
func (s *supervisor) gater(h HandlerDecl, e addons.Event, allow bool) func(context.Context, addons.Payload) addons.Decision {
	return func(ctx context.Context, p addons.Payload) addons.Decision {
		if !concerns(h, p) {
			return addons.Decision{}
		}
		params, err := s.eventParams(h, e, p)
		var res GateResult
		if err == nil {
			err = s.call(ctx, MethodGate, params, &res)
		}
		if err == nil {
			return addons.Decision{Stop: res.Stop, Reason: res.Reason}
		}
		if allow {
			s.fault(addons.HandlerFault, fmt.Sprintf("gate %s of %s failed; it lets the event through (on_error = \"allow\")", h.ID, e), err)
			return addons.Decision{}
		}
		s.fault(addons.HandlerFault, fmt.Sprintf("gate %s of %s failed; it refused the event (gates fail closed)", h.ID, e), err)
		return addons.Decision{Stop: true, Reason: fmt.Sprintf(
			"its gate %s failed (%v), and a failing gate refuses; fix the addon (see its log), or set on_error = { %q = \"allow\" } under [process] in its manifest to let calls through when the gate fails",
			h.ID, err, h.ID)}
	}
}

// enterStage fails open (the call proceeds) unless the interceptor says
// onError "deny".
func (s *supervisor) enterStage(ic InterceptorDecl) func(context.Context, addons.EnterContext) addons.EnterOutcome {
	failed := func(err error) addons.EnterOutcome {
		if ic.OnError == "deny" {
			s.fault(addons.HandlerFault, fmt.Sprintf("the enter stage of interceptor %s failed; it refused the call (onError \"deny\")", ic.ID), err)
			return addons.Refuse(fmt.Sprintf("its interceptor %s failed (%v) and refuses when it fails", ic.ID, err))
		}
		s.fault(addons.HandlerFault, fmt.Sprintf("the enter stage of interceptor %s failed; the call went on unchanged", ic.ID), err)
		return addons.Proceed()
	}
	return func(ctx context.Context, ec addons.EnterContext) addons.EnterOutcome {
		args := ec.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		var res EnterResult
		if err := s.call(ctx, MethodToolEnter, EnterParams{Interceptor: ic.ID, Tool: ec.Tool, CallID: ec.CallID, Args: args}, &res); err != nil {
			return failed(err)
		}
		switch res.Action {
		case "", "continue":
			return addons.Proceed()
		case "rewrite":
			if !isObject(res.Args) {
				return failed(fmt.Errorf("a rewrite must carry args, a JSON object"))
			}
			return addons.RewriteArgs(res.Args)
		case "block":
			return addons.Refuse(res.Reason)
		}
		return failed(fmt.Errorf("unknown action %q; actions are continue, rewrite and block", res.Action))
	}
}

// exitStage fails open: the result stays as it was.
func (s *supervisor) exitStage(ic InterceptorDecl) func(context.Context, addons.ExitContext) addons.ExitOutcome {
	return func(ctx context.Context, xc addons.ExitContext) addons.ExitOutcome {
		args := xc.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		var res ExitResult
		err := s.call(ctx, MethodToolExit, ExitParams{Interceptor: ic.ID, Tool: xc.Tool, CallID: xc.CallID, Args: args, Result: xc.Result}, &res)
		if err == nil {
			switch res.Action {
			case "", "continue":
				return addons.Keep()
			case "rewrite":
				if res.Result != nil {
					return addons.RewriteResult(*res.Result)
				}
				err = fmt.Errorf("a rewrite must carry a result")
			default:
				err = fmt.Errorf("unknown action %q; actions are continue and rewrite", res.Action)
			}
		}
		s.fault(addons.HandlerFault, fmt.Sprintf("the exit stage of interceptor %s failed; the result stayed as it was", ic.ID), err)
		return addons.Keep()
	}
}

// commandRunner runs command/run; a failure is the command's error (the host
// reports it as a command fault).
func (s *supervisor) commandRunner(c CommandDecl) func(context.Context, addons.CommandContext) (addons.ExecOutcome, error) {
	return func(ctx context.Context, cc addons.CommandContext) (addons.ExecOutcome, error) {
		args := cc.Args
		if args == nil {
			args = []string{}
		}
		var res CommandResult
		if err := s.call(ctx, MethodCommandRun, CommandParams{Command: c.Name, Args: args, Dir: cc.Dir}, &res); err != nil {
			return addons.ExecOutcome{Code: -1}, fmt.Errorf("addon %s: %w", s.id, err)
		}
		return addons.ExecOutcome{Stdout: res.Stdout, Stderr: res.Stderr, Code: res.Code}, nil
	}
}

// addonTool is a tool whose calls are tool/call requests.
func (s *supervisor) addonTool(t ToolDecl) tool.Tool {
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = tool.EmptyObjectSchema()
	}
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("A tool of addon %s.", s.id)
	}
	return &tool.Func{
		S: tool.Spec{Name: t.Name, Description: desc, InputSchema: schema, ReadOnly: t.ReadOnly},
		Fn: func(ctx context.Context, input json.RawMessage, _ *tool.Env) tool.Result {
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			var res tool.Result
			if err := s.call(ctx, MethodToolCall, ToolCallParams{Tool: t.Name, Arguments: input}, &res); err != nil {
				s.fault(addons.HandlerFault, fmt.Sprintf("tool %s failed", t.Name), err)
				return tool.Errorf("addon %s could not run %s: %v", s.id, t.Name, err)
			}
			return res
		},
	}
}
