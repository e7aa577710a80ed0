package web

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMarkdown feeds arbitrary HTML to both converters. They must not
// panic, must return valid UTF-8 (the model's API refuses anything else)
// and must not hand back a script's source.
func FuzzMarkdown(f *testing.F) {
	f.Add(article)
	f.Add("<p>plain</p>")
	f.Fuzz(func(t *testing.T, doc string) {
		md, err := Markdown(doc, "https://example.com/base/")
		if err == nil && !utf8.ValidString(md) {
			t.Errorf("Markdown returned invalid UTF-8: %q", md)
		}
		txt := PlainText(doc)
		if !utf8.ValidString(txt) {
			t.Errorf("PlainText returned invalid UTF-8: %q", txt)
		}
		// A script element closed before the fuzzed part cannot be
		// swallowed by it.
		wrapped := "<body><script>var canary = 1;</script>" + doc
		if md, err := Markdown(wrapped, ""); err == nil && strings.Contains(md, "var canary") {
			t.Errorf("script source leaked into Markdown: %q", md)
		}
		if strings.Contains(PlainText(wrapped), "var canary") {
			t.Error("script source leaked into plain text")
		}
	})
}

// FuzzDecodeText checks that any body under any declared charset comes
// out as valid UTF-8.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("caf\xe9"), "text/plain; charset=latin1")
	f.Add([]byte("<meta charset=cp1252>\x93q\x94"), "text/html")
	f.Add([]byte("\xff\xfe\x00a"), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		if out := decodeText(body, contentType); !utf8.ValidString(out) {
			t.Errorf("decodeText(%q, %q) = %q, not UTF-8", body, contentType, out)
		}
	})
}

// FuzzParseDuckDuckGo feeds arbitrary pages to the results scraper: it
// must not panic, and every title it returns is one line of text.
func FuzzParseDuckDuckGo(f *testing.F) {
	f.Add(`<div class="results"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F">A</a><a class="result__snippet">s</a></div>`)
	f.Add(`<div class="no-results"></div>`)
	f.Add(`<a class="result__a" href="%zz">bad escape</a>`)
	f.Fuzz(func(t *testing.T, page string) {
		hits, _ := parseDuckDuckGo(page)
		for _, h := range hits {
			if strings.Contains(h.Title, "\n") {
				t.Errorf("title keeps a newline: %q", h.Title)
			}
		}
	})
}
