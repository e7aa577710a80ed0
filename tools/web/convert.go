package web

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// chrome are the elements dropped besides what the converter already
// drops (head, script, style, noscript, iframe, form inputs): site
// navigation and decoration that cost the model tokens and say nothing
// about the page's subject.
var chrome = []string{"nav", "aside", "svg", "canvas", "button", "select", "template", "dialog"}

// newConverter builds an HTML-to-Markdown converter. A converter holds a
// lock for the whole of one conversion, so each call gets its own rather
// than queueing behind another session's large page.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(),
	))
	for _, tag := range chrome {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
}

// Markdown converts an HTML document to Markdown. Relative links and
// images are made absolute against pageURL when it is set.
func Markdown(doc, pageURL string) (string, error) {
	var opts []converter.ConvertOptionFunc
	if pageURL != "" {
		opts = append(opts, converter.WithDomain(pageURL))
	}
	md, err := newConverter().ConvertString(strings.ToValidUTF8(doc, "\uFFFD"), opts...)
	if err != nil {
		return "", fmt.Errorf("converting HTML to Markdown: %w", err)
	}
	return md, nil
}

// textSkip are the elements whose content plain text leaves out.
var textSkip = map[string]bool{"head": true, "script": true, "style": true, "noscript": true,
	"iframe": true, "template": true, "nav": true, "aside": true, "svg": true, "canvas": true}

// textBlock are the elements that start a new line in plain text.
var textBlock = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true,
	"section": true, "article": true, "header": true, "footer": true, "blockquote": true,
	"table": true, "ul": true, "ol": true, "dl": true, "dt": true, "dd": true, "hr": true, "main": true}

// PlainText extracts the readable text of an HTML document: one line per
// block, runs of spaces folded, the same chrome dropped as for Markdown.
func PlainText(doc string) string {
	root, err := html.Parse(strings.NewReader(strings.ToValidUTF8(doc, "\uFFFD")))
	if err != nil {
		return "" // html.Parse only fails on reader errors
	}
	var sb strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			if textSkip[n.Data] {
				return
			}
			if textBlock[n.Data] {
				sb.WriteByte('\n')
				defer sb.WriteByte('\n')
			} else if n.Data == "td" || n.Data == "th" {
				defer sb.WriteByte('\t')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return tidyLines(sb.String())
}

// tidyLines folds spaces inside lines, trims them, and keeps at most one
// blank line between paragraphs.
func tidyLines(s string) string {
	var out []string
	blank := true
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, line)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// clip cuts s to at most max characters (runes), at a rune boundary, and
// reports the full length when it had to cut.
func clip(s string, max int) (string, int, bool) {
	if len(s) <= max {
		return s, len(s), false // fewer bytes than max means fewer runes too
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, n, false
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return s[:i], n, true
}
