package bridge

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/bridge/ledger"
	"github.com/indusagi/induscode/tool"
)

// setTools makes tools the server's live tool set: new and changed tools
// are enrolled, vanished ones retired, and the routing table follows.
// Unchanged tools are left alone unless reenroll is set (after a restart:
// the ledger records the re-enrollment, an idempotent upsert).
func (f *Fleet) setTools(s *server, tools []*mcp.Tool, faults []string, reenroll bool) {
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
		}})
	}

	snap := f.ledger.Snapshot()
	keep := make(map[ledger.Key]bool, len(want))
	var enroll []ledger.EnrollRequest
	for _, c := range want {
		key := ledger.ContentKey(c.spec.Name, c.spec.InputSchema)
		keep[key] = true
		if e, ok := snap.Lookup(key); ok && !reenroll && e.Server == s.cfg.Name && sameSpec(e.Capability.Spec(), c.spec) {
			continue
		}
		enroll = append(enroll, ledger.EnrollRequest{Capability: c, Server: s.cfg.Name, Key: key})
	}
	var retire []ledger.Key
	for _, e := range snap.Entries() {
		if e.Server == s.cfg.Name && !keep[e.Key] {
			retire = append(retire, e.Key)
		}
	}
	at := ledger.Now()
	f.commit(f.ledger.RetireAll(retire, s.cfg.Name, at).EnrollAll(enroll, at))
	changed = len(retire) > 0 || len(enroll) > 0

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
		s.log.printf("fault: %s", msg)
	}
}

func sameSpec(a, b tool.Spec) bool {
	return a.Name == b.Name && a.Label == b.Label && a.Description == b.Description &&
		string(a.InputSchema) == string(b.InputSchema) && a.ReadOnly == b.ReadOnly
}
