package web

import (
	"mime"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Pages are handed to the model as UTF-8. The standard library decodes no
// legacy charsets, and the maintained decoder (golang.org/x/text) is not a
// dependency of this module, so the one family still common on the web,
// ISO-8859-1 and its superset Windows-1252, is decoded here; any other
// charset passes through with invalid bytes replaced.

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 (ISO-8859-1 has C1
// controls there, which browsers decode as Windows-1252 anyway, as the
// WHATWG Encoding Standard requires).
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// latin1Names are the labels the Encoding Standard maps to Windows-1252.
var latin1Names = map[string]bool{"iso-8859-1": true, "iso8859-1": true, "latin1": true, "l1": true,
	"windows-1252": true, "cp1252": true, "x-cp1252": true, "iso_8859-1": true, "us-ascii": true, "ascii": true}

// metaCharset finds a charset declared in the first bytes of an HTML page.
var metaCharset = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)`)
})

// decodeText returns body as UTF-8 text, decoding Windows-1252 when the
// Content-Type header or (for HTML) a <meta> tag in the first kilobyte
// declares it and the body is not already valid UTF-8.
func decodeText(body []byte, contentType string) string {
	if utf8.Valid(body) {
		return string(body)
	}
	label := ""
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		label = params["charset"]
	}
	if label == "" {
		if m := metaCharset().FindSubmatch(body[:min(len(body), 1024)]); m != nil {
			label = string(m[1])
		}
	}
	if !latin1Names[strings.ToLower(strings.TrimSpace(label))] {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	var sb strings.Builder
	sb.Grow(len(body) + len(body)/8)
	for _, b := range body {
		switch {
		case b < 0x80:
			sb.WriteByte(b)
		case b < 0xA0:
			sb.WriteRune(cp1252[b-0x80])
		default:
			sb.WriteRune(rune(b))
		}
	}
	return sb.String()
}
