package web

import (
	"container/list"
	"sync"
	"time"
)

// Cache bounds. Fifteen minutes is the freshness window the issue asks
// for (Claude Code's WebFetch uses the same); 32 MB and 64 pages keep a
// long session that fetches many large pages from holding them all.
const (
	CacheTTL      = 15 * time.Minute
	cacheMaxBytes = 32 << 20
	cacheMaxPages = 64
)

// page is one fetched response as the cache keeps it.
type page struct {
	url         string // the address asked for
	final       string // the address that answered, after redirects
	status      int
	statusText  string
	contentType string
	body        []byte
	redirect    string // a cross-host Location that was not followed
	fetched     time.Time
}

// cache is a least-recently-used map of pages with an age limit. One
// lives in each webfetch tool, so each deck has its own.
type cache struct {
	mu    sync.Mutex
	now   func() time.Time
	order *list.List // front = most recent; values are *page
	byURL map[string]*list.Element
	bytes int
}

func newCache(now func() time.Time) *cache {
	return &cache{now: now, order: list.New(), byURL: map[string]*list.Element{}}
}

func (c *cache) get(url string) (*page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byURL[url]
	if !ok {
		return nil, false
	}
	p := el.Value.(*page)
	if c.now().Sub(p.fetched) >= CacheTTL {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return p, true
}

func (c *cache) put(p *page) {
	if len(p.body) > cacheMaxBytes/4 {
		return // one huge page would push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byURL[p.url]; ok {
		c.remove(el)
	}
	c.byURL[p.url] = c.order.PushFront(p)
	c.bytes += len(p.body)
	for c.bytes > cacheMaxBytes || c.order.Len() > cacheMaxPages {
		c.remove(c.order.Back())
	}
}

func (c *cache) remove(el *list.Element) {
	p := c.order.Remove(el).(*page)
	delete(c.byURL, p.url)
	c.bytes -= len(p.body)
}

func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
