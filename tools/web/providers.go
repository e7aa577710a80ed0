package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The public endpoints of the keyed and keyless backends.
const (
	braveEndpoint  = "https://api.search.brave.com/res/v1/web/search"
	tavilyEndpoint = "https://api.tavily.com/search"
	duckEndpoint   = "https://html.duckduckgo.com/html/"
)

// maxAnswer bounds a backend's answer; a page of twenty results is a few
// tens of kilobytes.
const maxAnswer = 4 << 20

var searchClient = &http.Client{}

// ask sends req and decodes a JSON answer into v, or returns the raw
// body when v is nil.
func ask(req *http.Request, v any) ([]byte, error) {
	req.Header.Set("User-Agent", "induscode-websearch/1")
	resp, err := searchClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errStatus(resp.StatusCode, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			return nil, fmt.Errorf("the answer is not the JSON expected: %v", err)
		}
	}
	return body, nil
}

// searxng queries a SearXNG instance's JSON API (GET /search?format=json).
type searxng struct{ base string }

func (s *searxng) Name() string { return "SearXNG" }

func (s *searxng) Search(ctx context.Context, q string, limit int) ([]Hit, error) {
	u, err := url.Parse(strings.TrimRight(s.base, "/") + "/search")
	if err != nil {
		return nil, fmt.Errorf("SEARXNG_URL %q is not a URL: %v", s.base, err)
	}
	u.RawQuery = url.Values{"q": {q}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	var ans contentResults
	if _, err := ask(req, &ans); err != nil {
		return nil, err
	}
	return ans.hits(limit)
}

// brave queries the Brave Search web API.
type brave struct{ key, endpoint string }

func (b *brave) Name() string { return "Brave Search" }

func (b *brave) Search(ctx context.Context, q string, limit int) ([]Hit, error) {
	u, err := url.Parse(b.endpoint)
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"q": {q}, "count": {strconv.Itoa(limit)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if _, err := ask(req, &ans); err != nil {
		return nil, err
	}
	var hits []Hit
	for _, r := range ans.Web.Results {
		hits = append(hits, Hit{Title: r.Title, URL: r.URL, Snippet: stripTags(r.Description)})
	}
	return head(hits, limit), nil
}

// tavily queries the Tavily search API (POST JSON, bearer key).
type tavily struct{ key, endpoint string }

func (t *tavily) Name() string { return "Tavily" }

func (t *tavily) Search(ctx context.Context, q string, limit int) ([]Hit, error) {
	body, _ := json.Marshal(map[string]any{"query": q, "max_results": limit, "search_depth": "basic"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	var ans contentResults
	if _, err := ask(req, &ans); err != nil {
		return nil, err
	}
	return ans.hits(limit)
}

// contentResults is the answer shape SearXNG's JSON API and Tavily share:
// {"results": [{"title", "url", "content"}]}.
type contentResults struct {
	Results *[]struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// hits returns the first limit results; an answer without "results" is
// not a search answer.
func (c contentResults) hits(limit int) ([]Hit, error) {
	if c.Results == nil {
		return nil, errNoResults
	}
	var hits []Hit
	for _, r := range *c.Results {
		hits = append(hits, Hit{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return head(hits, limit), nil
}

func head(hits []Hit, n int) []Hit {
	if len(hits) > n {
		return hits[:n]
	}
	return hits
}

// stripTags removes the <strong> highlighting some backends put in
// snippets.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return PlainText(s)
}
