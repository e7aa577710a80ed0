package bridge

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/tool"
)

// setTools makes tools the server's live tool set: new and changed tools
// are enrolled, vanished ones retired, and the routing table follows. A
// tool the ledger already holds for this server with the same spec (from
// this process or, replayed from the log, an earlier one) writes nothing,
// so mounting, restarting or refreshing an unchanged server records no
// event. After a restart (restarted) the OnChange watchers are called even
// so, as [Fleet.OnChange] promises: a client that saw calls fail during the
// outage learns the server's tools are back.
func (f *Fleet) setTools(s *server, tools []*mcp.Tool, faults []string, restarted bool) {
	changed := false
	// Registered before the unlock, so it runs after it: listeners may
	// call back into the fleet.
	defer func() {
		if changed {
			f.changed()
		}
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.find(s.cfg.Name) != s {
		return
	}
	changed = restarted
	var want []*capability
	taken := make(map[string]string) // exposed name -> the server's tool name
	for _, t := range tools {
		if t == nil || t.Name == "" {
			faults = append(faults, "a listed tool has no name; it is ignored")
			continue
		}
		if !s.cfg.Tools.Admits(t.Name) {
			continue // left out by the config's "tools" filter, as asked
		}
		exposed := Qualify(s.cfg.Name, t.Name)
		if first, dup := taken[exposed]; dup {
			faults = append(faults, fmt.Sprintf("tools %q and %q both become %q; only the first is grafted (rename one on the server)", first, t.Name, exposed))
			continue
		}
		if r, ok := f.routes[exposed]; ok && r.srv != s {
			faults = append(faults, fmt.Sprintf("tool %q becomes %q, which server %q already provides; it is not grafted (rename the server or the tool)", t.Name, exposed, r.srv.cfg.Name))
			continue
		}
		taken[exposed] = t.Name
		schema, note := normalizeSchema(t.InputSchema)
		if note != "" {
			faults = append(faults, fmt.Sprintf("tool %q: %s", t.Name, note))
		}
		outSchema, note := outputSchema(t.OutputSchema)
		if note != "" {
			faults = append(faults, fmt.Sprintf("tool %q: %s", t.Name, note))
		}
		var annTitle string
		readOnly := false
		if t.Annotations != nil {
			annTitle = t.Annotations.Title
			// The server's own claim: read-only and not destructive. The
			// read-only profile grafts only such tools.
			readOnly = t.Annotations.ReadOnlyHint && (t.Annotations.DestructiveHint == nil || !*t.Annotations.DestructiveHint)
		}
		want = append(want, &capability{fleet: f, server: s.cfg.Name, name: t.Name, spec: tool.Spec{
			Name: exposed, Label: label(t.Title, annTitle, t.Name),
			Description: describe(t.Description, s.cfg.Name, t.Name), InputSchema: schema, ReadOnly: readOnly,
			OutputSchema: outSchema,
		}})
	}

	snap := f.ledger.Snapshot()
	keep := make(map[ledger.Key]bool, len(want))
	var enroll []ledger.EnrollRequest
	for i, c := range want {
		key := ledger.ContentKey(c.spec.Name, c.spec.InputSchema)
		keep[key] = true
		if old, ok := f.caps[key]; ok && old.server == c.server && old.name == c.name && tool.SameSpec(old.spec, c.spec) {
			want[i] = old // the same tool: callers holding it see no change
		} else {
			f.caps[key] = c
			changed = true
		}
		if e, ok := snap.Lookup(key); ok && e.Server == s.cfg.Name && tool.SameSpec(e.Capability.Spec(), c.spec) {
			continue
		}
		enroll = append(enroll, ledger.EnrollRequest{Capability: want[i], Server: s.cfg.Name, Key: key})
	}
	for k, c := range f.caps {
		if c.server == s.cfg.Name && !keep[k] {
			delete(f.caps, k)
			changed = true
		}
	}
	var retire []ledger.Key
	for _, e := range snap.Entries() {
		if e.Server == s.cfg.Name && !keep[e.Key] {
			retire = append(retire, e.Key)
		}
	}
	at := ledger.Now()
	f.commit(f.ledger.RetireAll(retire, s.cfg.Name, at).EnrollAll(enroll, at))
	changed = changed || len(retire) > 0 || len(enroll) > 0

	for name, r := range f.routes {
		if r.srv == s {
			delete(f.routes, name)
		}
	}
	for _, c := range want {
		f.routes[c.spec.Name] = route{srv: s, tool: c.name}
	}
	s.mu.Lock()
	s.faults = faults
	s.mu.Unlock()
	for _, msg := range faults {
		s.log.Printf("fault: %s", msg)
	}
}
