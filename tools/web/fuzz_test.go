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
