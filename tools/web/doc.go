// Package web authors the two read-only network tools of the deck:
// webfetch, which downloads one page and hands the model Markdown, text or
// raw HTML, and websearch, which asks a configured search backend
// (SearXNG, Brave, Tavily, or DuckDuckGo's HTML page when nothing else is
// set) and returns title, address and snippet per hit.
//
// A deck builds each tool with [Options]; the address policy there can
// refuse private, loopback and link-local targets (also behind an IPv6
// form that carries an IPv4 address), and is applied to the
// addresses a name resolves to at dial time, so neither a DNS name nor a
// redirect can smuggle a request onto the local network.
package web
