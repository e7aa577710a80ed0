package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Each backend answers in the format its documentation shows; the hits
// include a repeat and an off-domain result so filtering is visible.
func TestSearchBackends(t *testing.T) {
	t.Parallel()
	searx := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "go generics" {
			http.Error(w, "bad request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"query":"go generics","results":[
			{"url":"https://go.dev/doc/tutorial/generics","title":"Tutorial: Getting started with generics","content":"This tutorial introduces\n the basics.","engine":"duckduckgo"},
			{"url":"https://go.dev/doc/tutorial/generics/","title":"dup","content":"same page"},
			{"url":"https://spam.example/go","title":"Spam","content":"buy"}]}`)
	})
	brave := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "bk" || r.URL.Query().Get("count") == "" {
			http.Error(w, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"type":"search","web":{"type":"search","results":[
			{"title":"Tutorial: Getting started with generics","url":"https://go.dev/doc/tutorial/generics","description":"This <strong>tutorial</strong> introduces the basics."},
			{"title":"Spam","url":"https://spam.example/go","description":"buy"}]}}`)
	})
	tavily := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer tk" || req["query"] != "go generics" {
			http.Error(w, `{"detail":{"error":"Unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"query":"go generics","answer":null,"results":[
			{"title":"Tutorial: Getting started with generics","url":"https://go.dev/doc/tutorial/generics","content":"This tutorial introduces the basics.","score":0.9},
			{"title":"Spam","url":"https://spam.example/go","content":"buy","score":0.1}],"response_time":0.5}`)
	})
	ddg := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if q, _ := url.ParseQuery(string(body)); q.Get("q") != "go generics" {
			http.Error(w, "no query", http.StatusBadRequest)
			return
		}
		target := url.QueryEscape("https://go.dev/doc/tutorial/generics")
		fmt.Fprintf(w, `<html><body><div id="links" class="results">
			<div class="result results_links web-result"><h2 class="result__title">
			<a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=%s&amp;rut=abc">Tutorial: Getting started with <b>generics</b></a></h2>
			<a class="result__snippet" href="//duckduckgo.com/l/?uddg=%s">This tutorial introduces the basics.</a></div>
			<div class="result"><a class="result__a" href="https://spam.example/go">Spam</a><a class="result__snippet">buy</a></div>
			</div></body></html>`, target, target)
	})
	for _, tc := range []struct {
		name     string
		cfg      SearchConfig
		provider string
	}{
		{"searxng", SearchConfig{SearXNGURL: searx.URL, NoDuckDuckGo: true}, "SearXNG"},
		{"brave", SearchConfig{BraveKey: "bk", BraveURL: brave.URL, NoDuckDuckGo: true}, "Brave Search"},
		{"tavily", SearchConfig{TavilyKey: "tk", TavilyURL: tavily.URL, NoDuckDuckGo: true}, "Tavily"},
		{"duckduckgo", SearchConfig{DuckDuckGoURL: ddg.URL + "/html/"}, "DuckDuckGo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tl := SearchTool(Options{Search: &tc.cfg})
			r := call(t, tl, nil, map[string]any{"query": "go generics", "blocked_domains": []string{"spam.example"}})
			want := "1 result for \"go generics\" (via " + tc.provider + "):\n\n1. Tutorial: Getting started with generics\n" +
				"   https://go.dev/doc/tutorial/generics\n   This tutorial introduces the basics."
			if r.IsError || !strings.HasPrefix(r.PlainText(), want) {
				t.Errorf("got:\n%s\nwant:\n%s", r.PlainText(), want)
			}
			var js struct {
				Provider string `json:"provider"`
				Results  []Hit  `json:"results"`
			}
			if len(r.Blocks) != 2 || json.Unmarshal(r.Blocks[1].JSON, &js) != nil || len(js.Results) != 1 || js.Provider != tc.provider {
				t.Errorf("JSON block: %s", r.PlainText())
			}
		})
	}
}

func TestSearchFallsBackAndExplainsMissingConfig(t *testing.T) {
	t.Parallel()
	down := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	})
	ok := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"web":{"results":[{"title":"A","url":"https://a.example/","description":"a"}]}}`)
	})
	// SearXNG is down: Brave answers.
	cfg := SearchConfig{SearXNGURL: down.URL, BraveKey: "k", BraveURL: ok.URL, NoDuckDuckGo: true}
	if r := call(t, SearchTool(Options{Search: &cfg}), nil, map[string]any{"query": "a"}); r.IsError || !strings.Contains(r.PlainText(), "(via Brave Search)") {
		t.Errorf("no fallback to the next backend:\n%s", r.PlainText())
	}
	for _, tc := range []struct {
		name string
		cfg  SearchConfig
		want string
	}{
		{"nothing configured", SearchConfig{NoDuckDuckGo: true}, "no search backend is configured"},
		{"every backend down", SearchConfig{SearXNGURL: down.URL, DuckDuckGoURL: down.URL}, "SearXNG: HTTP 503: maintenance; DuckDuckGo: HTTP 503"},
		{"a page that is not results", SearchConfig{DuckDuckGoURL: ok.URL}, "DuckDuckGo: the results page has an unexpected layout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, SearchTool(Options{Search: &tc.cfg}), nil, map[string]any{"query": "a"})
			out := r.PlainText()
			if !r.IsError || !strings.Contains(out, tc.want) {
				t.Errorf("got %v:\n%s\nwant %q", r.IsError, out, tc.want)
			}
			for _, setting := range []string{"SEARXNG_URL", "BRAVE_API_KEY", "TAVILY_API_KEY"} {
				if !strings.Contains(out, setting) {
					t.Errorf("the error does not name %s:\n%s", setting, out)
				}
			}
		})
	}
	if r := call(t, SearchTool(Options{Search: &cfg}), nil, map[string]any{"query": "  "}); !r.IsError || !strings.Contains(r.PlainText(), "query is empty") {
		t.Errorf("blank query: %s", r.PlainText())
	}
	if r := call(t, SearchTool(Options{Search: &cfg}), nil, map[string]any{"query": "a", "limit": 50}); !r.IsError || !strings.Contains(r.PlainText(), "limit") {
		t.Errorf("limit 50 accepted: %s", r.PlainText())
	}
}

func TestFilterHits(t *testing.T) {
	t.Parallel()
	hits := []Hit{
		{Title: "a", URL: "https://docs.example.com/x"},
		{Title: "a again", URL: "https://www.docs.example.com/x/#frag"},
		{Title: "b", URL: "https://example.org/y"},
		{Title: "c", URL: "https://notexample.com/z"},
		{Title: "bad", URL: "javascript:alert(1)"},
		{Title: "d", URL: "http://sub.example.org/w"},
	}
	titles := func(hs []Hit) string {
		var s []string
		for _, h := range hs {
			s = append(s, h.Title)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name             string
		allowed, blocked []string
		limit            int
		want             string
	}{
		{"dedupe and drop non-http", nil, nil, 10, "a,b,c,d"},
		{"allowed includes subdomains", []string{"example.com"}, nil, 10, "a"},
		{"allowed is not a suffix match", []string{"www.example.org"}, nil, 10, "b,d"},
		{"blocked", nil, []string{"example.org"}, 10, "a,c"},
		{"limit", nil, nil, 2, "a,b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := titles(filterHits(hits, tc.allowed, tc.blocked, tc.limit)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
