package lsp

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The LSP types this package uses, as the specification names their
// fields. Positions are zero-based; Character counts code units of the
// encoding the server chose at initialize (UTF-8 or UTF-16).

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// locationLink is the richer answer some servers give to definition.
type locationLink struct {
	TargetURI            string   `json:"targetUri"`
	TargetRange          lspRange `json:"targetRange"`
	TargetSelectionRange lspRange `json:"targetSelectionRange"`
}

// diagnostic is one problem a server reports in a document.
type diagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          lspRange         `json:"range"`
	SelectionRange lspRange         `json:"selectionRange"`
	Children       []documentSymbol `json:"children,omitempty"`
	// Location is set instead of the ranges when the server answers with
	// the older SymbolInformation shape.
	Location      *location `json:"location,omitempty"`
	ContainerName string    `json:"containerName,omitempty"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     position               `json:"position"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

// symbolKinds names LSP's SymbolKind values (1-based).
var symbolKinds = [...]string{"", "file", "module", "namespace", "package", "class", "method",
	"property", "field", "constructor", "enum", "interface", "function", "variable", "constant",
	"string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct",
	"event", "operator", "type parameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the absolute path of a file: URI ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// Encodings of Position.Character that a server may choose.
const (
	encodingUTF8  = "utf-8"
	encodingUTF16 = "utf-16"
)

// toUnits converts a zero-based rune column of line into code units of enc.
func toUnits(line string, runes int, enc string) int {
	units := 0
	for _, r := range line {
		if runes == 0 {
			break
		}
		runes--
		if enc == encodingUTF8 {
			units += utf8.RuneLen(r)
		} else {
			units += len(utf16.Encode([]rune{r}))
		}
	}
	return units + runes // past the end: count the rest as one unit each
}

// toRunes converts a column in code units of enc into a zero-based rune
// column of line.
func toRunes(line string, units int, enc string) int {
	n := 0
	for _, r := range line {
		w := utf8.RuneLen(r)
		if enc != encodingUTF8 {
			w = len(utf16.Encode([]rune{r}))
		}
		if units < w {
			break
		}
		units -= w
		n++
	}
	return n
}

// lineOf returns line n (zero-based) of text without its line ending.
func lineOf(text string, n int) string {
	for ; n > 0; n-- {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return ""
		}
		text = text[i+1:]
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSuffix(text, "\r")
}
