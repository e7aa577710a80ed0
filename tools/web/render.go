package web

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/workspace"
)

// maxImageBlock is the largest image also returned inline: model APIs
// accept a few megabytes per image, and one megabyte keeps a result
// small enough to send back every turn.
const maxImageBlock = 1 << 20

// render turns a fetched page into the tool's result.
func render(p *page, in fetchInput, env *tool.Env, cached bool) tool.Result {
	var head strings.Builder
	fmt.Fprintf(&head, "URL: %s\nStatus: %d %s\n", p.final, p.status, p.statusText)
	if p.contentType != "" {
		fmt.Fprintf(&head, "Content-Type: %s\n", p.contentType)
	}
	if cached {
		fmt.Fprintf(&head, "(from the cache, fetched %s ago)\n", time.Since(p.fetched).Round(time.Second))
	}
	if p.redirect != "" {
		return tool.Textf("%s\n%s redirects to another host: %s\nThe redirect was not followed. Call webfetch with that URL if you want its content.",
			head.String(), p.url, p.redirect)
	}
	media := mediaType(p)
	if !isText(media) {
		return saveBinary(p, media, head.String(), env)
	}
	content := decodeText(p.body, p.contentType)
	if media == "text/html" || media == "application/xhtml+xml" {
		switch in.Format {
		case FormatMarkdown:
			md, err := Markdown(content, p.final)
			if err != nil {
				return tool.Errorf("webfetch: %s: %v; try format=text or format=html", p.final, err)
			}
			content = md
		case FormatText:
			content = PlainText(content)
		}
	}
	body, total, cut := clip(content, in.MaxChars)
	out := head.String() + "\n" + body
	if cut {
		out += fmt.Sprintf("\n\n[Content truncated: showing %d of %d characters. Call again with a larger max_chars (at most %d) or format=text to see more.]",
			in.MaxChars, total, maxMaxChars)
	}
	if p.status >= 400 {
		res := tool.Errorf("webfetch: the server answered %d %s for %s; check the address.\n\n%s", p.status, p.statusText, p.final, out)
		return res
	}
	return tool.Text(out)
}

// mediaType is the page's media type from its header, or sniffed from
// the body when the header is missing or says nothing.
func mediaType(p *page) string {
	if mt, _, err := mime.ParseMediaType(p.contentType); err == nil && mt != "application/octet-stream" {
		return strings.ToLower(mt)
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(p.body))
	return mt
}

// isText reports whether a media type is text the model can read.
func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/ecmascript", "application/x-yaml", "application/yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-ndjson":
		return true
	}
	return false
}

// saveBinary writes a non-text body under the workspace's downloads
// folder and says where it is; a small image is also returned inline.
func saveBinary(p *page, media, head string, env *tool.Env) tool.Result {
	dir := workspace.At(env.Dir).Downloads()
	if err := workspace.MkdirAll(dir, 0o755); err != nil {
		return tool.Errorf("webfetch: %s is %s, which must be saved to a file, but %s cannot be created: %v", p.final, media, dir, err)
	}
	name := strconv.FormatInt(time.Now().UnixMilli(), 36) + "-" + downloadName(p.final, media)
	file := dir + "/" + name
	if err := workspace.WriteFile(file, p.body, 0o644); err != nil {
		return tool.Errorf("webfetch: %s is %s, but saving it to %s failed: %v", p.final, media, file, err)
	}
	msg := fmt.Sprintf("%s\nThe body is %s (%d bytes), not text; it was saved to %s. Read that file with a tool that handles this type.",
		head, media, len(p.body), file)
	res := tool.Text(msg)
	if strings.HasPrefix(media, "image/") && media != "image/svg+xml" && len(p.body) <= maxImageBlock {
		res.Blocks = append(res.Blocks, tool.Block{Kind: tool.KindImage, Data: p.body, MIME: media})
	}
	if p.status >= 400 {
		res.IsError = true
	}
	return res
}

// downloadName derives a safe file name from the URL's last path element,
// adding an extension for the media type when it has none.
func downloadName(raw, media string) string {
	base := "download"
	if u, err := url.Parse(raw); err == nil {
		if b := path.Base(u.Path); b != "/" && b != "." && b != "" {
			base = b
		}
	}
	base = safeName(base, 80)
	if path.Ext(base) == "" {
		if exts, _ := mime.ExtensionsByType(media); len(exts) > 0 {
			base += exts[0]
		}
	}
	return base
}

// safeName keeps letters, digits, dot, dash and underscore, and at most
// max bytes of them.
func safeName(s string, max int) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'):
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
		if sb.Len() >= max {
			break
		}
	}
	out := strings.TrimLeft(sb.String(), ".")
	if out == "" {
		return "download"
	}
	return out
}
