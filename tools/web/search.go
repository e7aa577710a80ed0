package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// Hit is one search result.
type Hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Provider is a search backend. Search returns up to limit hits for the
// query, best first.
type Provider interface {
	Name() string
	Search(ctx context.Context, query string, limit int) ([]Hit, error)
}

// SearchConfig chooses the backends of websearch. Each backend with its
// setting present is tried in the order SearXNG, Brave, Tavily; the
// keyless DuckDuckGo backend comes last unless NoDuckDuckGo is set. The
// *URL fields override the providers' public endpoints (self-hosted
// gateways, tests).
type SearchConfig struct {
	SearXNGURL    string // SEARXNG_URL: base URL of a SearXNG instance with the JSON format enabled
	BraveKey      string // BRAVE_API_KEY
	BraveURL      string // default https://api.search.brave.com/res/v1/web/search
	TavilyKey     string // TAVILY_API_KEY
	TavilyURL     string // default https://api.tavily.com/search
	DuckDuckGoURL string // default https://html.duckduckgo.com/html/
	NoDuckDuckGo  bool
}

// SearchConfigFromEnv reads the backend settings from the environment.
func SearchConfigFromEnv(getenv func(string) string) SearchConfig {
	return SearchConfig{
		SearXNGURL: strings.TrimSpace(getenv("SEARXNG_URL")),
		BraveKey:   strings.TrimSpace(getenv("BRAVE_API_KEY")),
		TavilyKey:  strings.TrimSpace(getenv("TAVILY_API_KEY")),
	}
}

// Providers returns the backends the configuration enables, in the
// order they are tried.
func (c SearchConfig) Providers() []Provider {
	var ps []Provider
	if c.SearXNGURL != "" {
		ps = append(ps, &searxng{base: c.SearXNGURL})
	}
	if c.BraveKey != "" {
		ps = append(ps, &brave{key: c.BraveKey, endpoint: or(c.BraveURL, braveEndpoint)})
	}
	if c.TavilyKey != "" {
		ps = append(ps, &tavily{key: c.TavilyKey, endpoint: or(c.TavilyURL, tavilyEndpoint)})
	}
	if !c.NoDuckDuckGo {
		ps = append(ps, &duckduckgo{endpoint: or(c.DuckDuckGoURL, duckEndpoint)})
	}
	return ps
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// searchTimeout bounds each backend's answer; a search engine that needs
// longer is better skipped for the next one.
const searchTimeout = 20 * time.Second

// maxLimit bounds limit: every backend here returns at most 20 per page.
const maxLimit = 20

type searchInput struct {
	Query          string   `json:"query" jsonschema:"What to search the web for."`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Only return results from these domains (and their subdomains)."`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Never return results from these domains (and their subdomains)."`
	Limit          int      `json:"limit,omitempty" jsonschema:"How many results to return (default 10, at most 20)."`
}

// SearchTool returns a websearch tool over the backends of opts.Search,
// or of the environment when that is nil.
func SearchTool(opts Options) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "websearch",
		Label: "Web search",
		Description: "Search the web and return the best results as title, URL and snippet. Use it for anything past your " +
			"training data or outside the workspace: current documentation, error messages, release notes. Narrow the " +
			"results with allowed_domains or blocked_domains; then read a result in full with webfetch.",
		ReadOnly: true,
	}, func(ctx context.Context, in searchInput, _ *tool.Env) tool.Result {
		cfg := SearchConfigFromEnv(os.Getenv)
		if opts.Search != nil {
			cfg = *opts.Search
		}
		return search(ctx, cfg.Providers(), in)
	}, searchSchema))
}

// searchSchema bounds limit; a package value, so the schema is built once
// although every deck builds its own websearch.
var searchSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetRange(s, "limit", 1, maxLimit)
	tool.SetDefault(s, "limit", 10)
})

// noProvider is the advice when no backend could answer.
const noProvider = "Configure a search backend: set SEARXNG_URL to a SearXNG instance with format=json enabled, " +
	"or BRAVE_API_KEY (Brave Search API), or TAVILY_API_KEY (Tavily)."

func search(ctx context.Context, providers []Provider, in searchInput) tool.Result {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return tool.Errorf("websearch: query is empty; say what to search for")
	}
	if in.Limit <= 0 {
		in.Limit = 10
	}
	if len(providers) == 0 {
		return tool.Errorf("websearch: no search backend is configured. %s", noProvider)
	}
	var errs []string
	for _, p := range providers {
		// Ask for more than needed when filtering will drop some.
		want := in.Limit
		if len(in.AllowedDomains)+len(in.BlockedDomains) > 0 {
			want = maxLimit
		}
		pctx, cancel := context.WithTimeout(ctx, searchTimeout)
		hits, err := p.Search(pctx, q, want)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return tool.Errorf("websearch was cancelled")
			}
			errs = append(errs, fmt.Sprintf("%s: %v", p.Name(), err))
			continue
		}
		hits = filterHits(hits, in.AllowedDomains, in.BlockedDomains, in.Limit)
		return renderHits(q, p.Name(), hits)
	}
	return tool.Errorf("websearch: no search backend answered (%s). %s", strings.Join(errs, "; "), noProvider)
}

func renderHits(q, provider string, hits []Hit) tool.Result {
	var sb strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&sb, "No results for %q (via %s). Try other words or fewer domain filters.", q, provider)
	} else {
		noun := "results"
		if len(hits) == 1 {
			noun = "result"
		}
		fmt.Fprintf(&sb, "%d %s for %q (via %s):\n", len(hits), noun, q, provider)
		for i, h := range hits {
			fmt.Fprintf(&sb, "\n%d. %s\n   %s\n", i+1, h.Title, h.URL)
			if h.Snippet != "" {
				fmt.Fprintf(&sb, "   %s\n", h.Snippet)
			}
		}
	}
	res := tool.Text(strings.TrimRight(sb.String(), "\n"))
	if hits == nil {
		hits = []Hit{}
	}
	res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{"provider": provider, "results": hits}))
	return res
}

// filterHits keeps hits with an http(s) URL inside the allowed domains
// (when any are given) and outside the blocked ones, drops repeats of a
// URL, and returns at most limit.
func filterHits(hits []Hit, allowed, blocked []string, limit int) []Hit {
	seen := map[string]bool{}
	var out []Hit
	for _, h := range hits {
		u, err := url.Parse(strings.TrimSpace(h.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		host := strings.ToLower(u.Hostname())
		if len(allowed) > 0 && !inDomains(host, allowed) || inDomains(host, blocked) {
			continue
		}
		key := canonicalURL(u)
		if seen[key] {
			continue
		}
		seen[key] = true
		h.URL = u.String()
		h.Title = strings.TrimSpace(h.Title)
		h.Snippet = strings.Join(strings.Fields(h.Snippet), " ")
		out = append(out, h)
		if len(out) == limit {
			break
		}
	}
	return out
}

// inDomains reports whether host is one of domains or a subdomain of one.
func inDomains(host string, domains []string) bool {
	for _, d := range domains {
		d = strings.ToLower(strings.Trim(strings.TrimSpace(d), "."))
		if d = strings.TrimPrefix(d, "www."); d == "" {
			continue
		}
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// canonicalURL is the form two hits are compared in: scheme and host in
// lower case, no fragment, no trailing slash, "www." dropped.
func canonicalURL(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	c.Scheme = "https"
	c.Host = strings.TrimPrefix(strings.ToLower(c.Host), "www.")
	c.Path = strings.TrimSuffix(c.Path, "/")
	c.RawPath = ""
	return c.String()
}

// errStatus describes a backend's non-200 answer.
func errStatus(code int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		return fmt.Errorf("HTTP %d", code)
	}
	return fmt.Errorf("HTTP %d: %s", code, msg)
}

var errNoResults = errors.New("the answer has no results list; is this the right endpoint?")
