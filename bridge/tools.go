package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listing limits. A server that pages forever (a cursor bug) or lists an
// absurd number of tools must not stall a mount or flood a model's context.
const (
	// maxToolPages bounds tools/list pagination.
	maxToolPages = 100
	// maxServerTools bounds the tools grafted from one server; past a few
	// hundred tools models choose badly anyway.
	maxServerTools = 1000
)

// refreshCoalesce is how long the bridge waits after tools/list_changed
// before listing again, so a burst of notifications costs one listing.
const refreshCoalesce = 100 * time.Millisecond

// listTools reads a server's tools, following pagination up to the caps.
// faults says what was cut.
func listTools(ctx context.Context, cs *mcp.ClientSession) (tools []*mcp.Tool, faults []string, err error) {
	if res := cs.InitializeResult(); res != nil && res.Capabilities != nil && res.Capabilities.Tools == nil {
		return nil, []string{"the server does not offer tools (no tools capability)"}, nil
	}
	params := &mcp.ListToolsParams{}
	seen := make(map[string]bool)
	for page := 0; ; page++ {
		if page == maxToolPages {
			faults = append(faults, fmt.Sprintf("tools/list was still paging after %d pages; the rest was ignored", maxToolPages))
			break
		}
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			if page == 0 {
				return nil, nil, err
			}
			faults = append(faults, fmt.Sprintf("tools/list failed on page %d (%v); the tools listed before it are used", page+1, err))
			break
		}
		tools = append(tools, res.Tools...)
		if len(tools) > maxServerTools {
			faults = append(faults, fmt.Sprintf("the server lists more than %d tools; only the first %d are grafted", maxServerTools, maxServerTools))
			tools = tools[:maxServerTools]
			break
		}
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			faults = append(faults, "tools/list returned a cursor it had returned before; paging stopped")
			break
		}
		seen[res.NextCursor] = true
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	return tools, faults, nil
}

// refresher lists the tools again whenever the server says they changed.
func (l *link) refresher() {
	defer l.wg.Done()
	s := l.srv
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.refresh:
		}
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(refreshCoalesce):
		}
		select {
		case <-l.refresh: // folded into this refresh
		default:
		}
		// Every notification counted by now is answered by the listing
		// below; a later one leaves a signal for another round.
		seen := l.notified.Load()
		ctx, cancel := context.WithTimeout(l.ctx, s.startupTimeout())
		tools, faults, err := listTools(ctx, l.session)
		cancel()
		if l.ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		current := s.link == l
		s.refreshes++
		if err != nil {
			s.lastErr = fmt.Sprintf("re-listing tools after tools/list_changed failed: %v", err)
		}
		s.mu.Unlock()
		if err != nil {
			s.log.Printf("refresh failed: %v", err)
		} else if current {
			s.fleet.setTools(s, tools, faults, false)
		}
		l.listedUpTo.Store(seen)
	}
}
