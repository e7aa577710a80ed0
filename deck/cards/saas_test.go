package cards

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// gatewayServer answers the HTTP gateway contract of the package doc.
func gatewayServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"bad token"}`)
			return
		}
		var req struct {
			Query  string          `json:"query"`
			Slug   string          `json:"slug"`
			Params json.RawMessage `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"POST JSON"}`, http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/v1/discover":
			all := []SaasAction{
				{Slug: "GITHUB_CREATE_ISSUE", Description: "Open an issue", InputSchema: json.RawMessage(`{"type":"object","required":["repo","title"]}`)},
				{Slug: "SLACK_POST_MESSAGE", Description: "Post to a channel"},
			}
			var out []SaasAction
			for _, a := range all {
				if strings.Contains(a.Slug, strings.ToUpper(req.Query)) {
					out = append(out, a)
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"actions": append([]SaasAction{}, out...)})
		case "/v1/execute":
			if req.Slug != "GITHUB_CREATE_ISSUE" {
				fmt.Fprintf(w, `{"error":"unknown action %s"}`, req.Slug)
				return
			}
			fmt.Fprintf(w, `{"result":{"number":7,"echo":%s}}`, req.Params)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSaasActionOverHTTPGateway(t *testing.T) {
	t.Parallel()
	srv := gatewayServer(t)
	card := SaasActionCard(&HTTPGateway{URL: srv.URL + "/v1/", Token: "tok"})
	env := tool.NewEnv(t.TempDir())
	for _, tc := range []struct {
		name  string
		in    map[string]any
		isErr bool
		want  string
	}{
		{"discover all", map[string]any{"action": "discover"}, false, "2 actions:\n\nGITHUB_CREATE_ISSUE — Open an issue\n  params: {\"type\":\"object\",\"required\":[\"repo\",\"title\"]}\nSLACK_POST_MESSAGE — Post to a channel"},
		{"discover filtered", map[string]any{"action": "discover", "slug": "slack"}, false, "1 action:\n\nSLACK_POST_MESSAGE"},
		{"discover nothing", map[string]any{"action": "discover", "slug": "jira"}, false, `No actions match "jira"`},
		{"execute", map[string]any{"action": "execute", "slug": "GITHUB_CREATE_ISSUE", "params": map[string]any{"repo": "a/b", "title": "t"}}, false,
			`GITHUB_CREATE_ISSUE succeeded:` + "\n" + `{"number":7,"echo":{"repo":"a/b","title":"t"}}`},
		{"execute error", map[string]any{"action": "execute", "slug": "github_create_issue"}, true, "saas-action github_create_issue failed: unknown action github_create_issue"},
		{"execute without slug", map[string]any{"action": "execute"}, true, "needs slug"},
		{"bad action", map[string]any{"action": "run"}, true, "field action"},
		{"params not an object", map[string]any{"action": "execute", "slug": "X", "params": []int{1}}, true, "params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, card, env, tc.in)
			if r.IsError != tc.isErr || !strings.Contains(text(r), tc.want) {
				t.Errorf("is_error=%v:\n%s\nwant is_error=%v and %q", r.IsError, text(r), tc.isErr, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		gw   *HTTPGateway
		want string
	}{
		{"wrong token", &HTTPGateway{URL: srv.URL + "/v1", Token: "nope"}, "refused the token (HTTP 401: bad token)"},
		{"wrong path", &HTTPGateway{URL: srv.URL + "/v2", Token: "tok"}, "answered HTTP 404"},
		{"no URL", &HTTPGateway{}, "has no URL"},
		{"unreachable", &HTTPGateway{URL: "http://127.0.0.1:1"}, "cannot reach the gateway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, SaasActionCard(tc.gw), env, map[string]any{"action": "discover"})
			if !r.IsError || !strings.Contains(text(r), tc.want) {
				t.Errorf("got %v: %s\nwant %q", r.IsError, text(r), tc.want)
			}
		})
	}
}

func TestCardsWithoutHandlesSayHowToConfigure(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	for _, tc := range []struct {
		card tool.Tool
		in   map[string]any
		want string
	}{
		{SaasActionCard(nil), map[string]any{"action": "discover"}, "deck.Framework.Saas"},
		{Task(nil), map[string]any{"objective": "x"}, "deck.Framework.Delegate"},
	} {
		name := tc.card.Spec().Name
		r := run(t, tc.card, env, tc.in)
		if !r.IsError || !strings.Contains(text(r), "is not configured") || !strings.Contains(text(r), tc.want) {
			t.Errorf("%s: %s", name, r.PlainText())
		}
		if len(r.Blocks) != 2 || !strings.Contains(string(r.Blocks[1].JSON), `"error":"not_configured"`) {
			t.Errorf("%s: no typed not_configured block: %s", name, r.PlainText())
		}
	}
}
