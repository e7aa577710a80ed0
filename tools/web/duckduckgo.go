package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// duckduckgo scrapes DuckDuckGo's script-free HTML results page, the one
// backend that needs no key. Its markup is not an API and may change; a
// page without results markup is reported as an error so the advice to
// configure a real backend reaches the model.
type duckduckgo struct{ endpoint string }

func (d *duckduckgo) Name() string { return "DuckDuckGo" }

func (d *duckduckgo) Search(ctx context.Context, q string, limit int) ([]Hit, error) {
	form := url.Values{"q": {q}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	body, err := ask(req, nil)
	if err != nil {
		return nil, err
	}
	hits, ok := parseDuckDuckGo(string(body))
	if !ok {
		return nil, errors.New("the results page has an unexpected layout (or a challenge page was served)")
	}
	return head(hits, limit), nil
}

// parseDuckDuckGo reads the hits of a results page: each result holds an
// <a class="result__a"> (title and link) and an element of class
// result__snippet. ok is false when the page has no results container.
func parseDuckDuckGo(page string) (hits []Hit, ok bool) {
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return nil, false
	}
	var cur *Hit
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := attr(n, "class")
			switch {
			case hasClass(cls, "results") || hasClass(cls, "no-results"):
				ok = true
			case n.Data == "a" && hasClass(cls, "result__a"):
				hits = append(hits, Hit{Title: textOf(n), URL: duckTarget(attr(n, "href"))})
				cur = &hits[len(hits)-1]
				return
			case hasClass(cls, "result__snippet") && cur != nil:
				cur.Snippet = textOf(n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return hits, ok || len(hits) > 0
}

// duckTarget unwraps DuckDuckGo's click-tracking link
// (//duckduckgo.com/l/?uddg=<target>).
func duckTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	if t := u.Query().Get("uddg"); t != "" {
		return t
	}
	if u.Scheme == "" {
		u.Scheme = "https"
	}
	return u.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(classes, c string) bool {
	for _, x := range strings.Fields(classes) {
		if x == c {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(sb.String()), " ")
}
