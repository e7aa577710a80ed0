package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// onePageMB builds an HTML page of about 1 MB: a documentation-like mix
// of headings, paragraphs with links, lists, code blocks and tables,
// wrapped in navigation chrome.
func onePageMB() string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><script>var x=1;</script><style>p{}</style></head><body><nav><a href='/'>Home</a></nav><main>")
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "<h2>Section %d</h2><p>Paragraph %d with <a href='/doc/%d'>a link</a>, <em>emphasis</em> and <code>code</code>. "+
			"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.</p>"+
			"<ul><li>first item</li><li>second item</li></ul><pre><code>func f%d() int { return %d }</code></pre>"+
			"<table><tr><th>key</th><th>value</th></tr><tr><td>k%d</td><td>%d</td></tr></table>", i, i, i, i, i, i, i)
	}
	sb.WriteString("</main></body></html>")
	return sb.String()
}

// BenchmarkFetch1MB measures one webfetch call of a 1 MB HTML page from a
// local server, conversion to Markdown included. Each iteration asks for
// a new URL so the response cache never answers.
func BenchmarkFetch1MB(b *testing.B) {
	page := onePageMB()
	srv := serve(b, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})
	tl := FetchTool(Options{})
	env := tool.NewEnv(b.TempDir())
	b.SetBytes(int64(len(page)))
	i := 0
	for b.Loop() {
		i++
		r := call(b, tl, env, map[string]any{"url": fmt.Sprintf("%s/?i=%d", srv.URL, i), "max_chars": maxMaxChars})
		if r.IsError {
			b.Fatal(r.PlainText())
		}
	}
}

// BenchmarkMarkdown1MB measures the conversion alone.
func BenchmarkMarkdown1MB(b *testing.B) {
	page := onePageMB()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Markdown(page, "https://example.com/"); err != nil {
			b.Fatal(err)
		}
	}
}
