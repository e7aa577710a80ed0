package conductor

import (
	"cmp"
	"encoding/json"
	"time"

	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
)

// Denial is a tool call the run refused (a deny rule, the permission
// mode, plan mode, a gate or hook, or the user): how a script learns that
// what the model asked for did not happen.
type Denial struct {
	Tool      string
	ToolUseID string
	Input     json.RawMessage
}

// ModelUse is what one model's calls in a run used, the model named as
// the server that answered named it.
type ModelUse struct {
	Model string
	Usage provider.Usage
	Cost  float64
	// ContextWindow is the model's window in tokens, as the run knew it;
	// MaxOutputTokens the most an answer was allowed.
	ContextWindow   int64
	MaxOutputTokens int64
}

// noteCall adds one answered model call, which took d, to the run's
// account: the time spent waiting on the API, the model that answered
// and its usage, the answer's stop reason.
func (r *Result) noteCall(asked provider.ModelID, window, maxOut int64, resp *provider.Response, d time.Duration) {
	r.APIDuration += d
	r.Stop = resp.Stop
	name := cmp.Or(resp.Model, asked.Name)
	for i := range r.Models {
		if r.Models[i].Model == name {
			r.Models[i].Usage = r.Models[i].Usage.Add(resp.Usage)
			r.Models[i].Cost += resp.Cost
			return
		}
	}
	r.Models = append(r.Models, ModelUse{Model: name, Usage: resp.Usage, Cost: resp.Cost, ContextWindow: window, MaxOutputTokens: maxOut})
}

// noteDenials records the calls of a message that were refused.
func (r *Result) noteDenials(uses, results []provider.Block) {
	for i, u := range uses {
		if i < len(results) && results[i].IsError && results[i].Failure == toolrun.Refused {
			r.Denials = append(r.Denials, Denial{Tool: u.Name, ToolUseID: u.ID, Input: u.Input})
		}
	}
}

// describe adds to st what the session has beyond its tools: its MCP
// servers, the subagents it can run, its addons.
func (c *Conductor) describe(st *Started) {
	if f := c.sess.Fleet(); f != nil {
		for _, s := range f.Status() {
			st.Servers = append(st.Servers, ServerState{Name: s.Name, State: s.State.String()})
		}
	}
	if c.subagents != nil {
		for _, p := range c.subagents.roster {
			st.Agents = append(st.Agents, p.Name)
		}
	}
	if b := c.sess.Addons(); b != nil {
		for _, a := range b.Loaded {
			st.Addons = append(st.Addons, AddonInfo{ID: string(a.ID), Path: a.Path})
		}
	}
}
