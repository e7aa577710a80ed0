package tool

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind tells what a [Block] carries.
type Kind uint8

// The block kinds. The set is closed; code that switches on Kind handles
// every value (see TestKindsHandled).
const (
	KindText     Kind = iota + 1 // Text
	KindJSON                     // JSON (a raw JSON value)
	KindImage                    // Data with MIME
	KindResource                 // URI with MIME and Text or Data (an MCP embedded resource)

	// kindEnd is one past the last Kind: keep it last, so that the
	// exhaustiveness tests, which loop up to it, see every new Kind.
	kindEnd
)

// Kinds returns every Kind; each call returns a new slice.
func Kinds() []Kind { return []Kind{KindText, KindJSON, KindImage, KindResource} }

func (k Kind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindJSON:
		return "json"
	case KindImage:
		return "image"
	case KindResource:
		return "resource"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Block is one piece of a result. Only the fields of its Kind are set.
type Block struct {
	Kind Kind
	Text string          // KindText; KindResource text contents
	JSON json.RawMessage // KindJSON
	Data []byte          // KindImage; KindResource binary contents
	MIME string          // KindImage, KindResource
	URI  string          // KindResource
}

// Result is the outcome of one call: ordered content blocks and whether the
// call failed. A failed call's blocks explain what went wrong and what to do.
type Result struct {
	Blocks  []Block
	IsError bool
}

// Text returns a successful result with one text block.
func Text(s string) Result { return Result{Blocks: []Block{{Kind: KindText, Text: s}}} }

// Textf is Text with formatting.
func Textf(format string, args ...any) Result { return Text(fmt.Sprintf(format, args...)) }

// Errorf returns a failed result whose one text block is the formatted message.
func Errorf(format string, args ...any) Result {
	return Result{Blocks: []Block{{Kind: KindText, Text: fmt.Sprintf(format, args...)}}, IsError: true}
}

// JSON returns a successful result with one JSON block holding v, or a
// failed result if v cannot be encoded.
func JSON(v any) Result {
	b, err := json.Marshal(v)
	if err != nil {
		return Errorf("internal error: encoding result: %v", err)
	}
	return Result{Blocks: []Block{{Kind: KindJSON, JSON: b}}}
}

// Image returns a successful result with one image block.
func Image(data []byte, mime string) Result {
	return Result{Blocks: []Block{{Kind: KindImage, Data: data, MIME: mime}}}
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Kind: KindText, Text: s} }

// JSONBlock returns a JSON block holding v, or a text block describing the
// encoding failure.
func JSONBlock(v any) Block {
	b, err := json.Marshal(v)
	if err != nil {
		return TextBlock(fmt.Sprintf("internal error: encoding block: %v", err))
	}
	return Block{Kind: KindJSON, JSON: b}
}

// PlainText joins the result for a reader who sees only text: text blocks
// as they are, JSON blocks as compact JSON, images and binary resources as a
// one-line placeholder. Blocks are separated by a blank line.
func (r Result) PlainText() string {
	var sb strings.Builder
	for i, b := range r.Blocks {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(b.plain())
	}
	return sb.String()
}

func (b Block) plain() string {
	switch b.Kind {
	case KindText:
		return b.Text
	case KindJSON:
		return string(b.JSON)
	case KindImage:
		return fmt.Sprintf("[image %s, %d bytes]", b.MIME, len(b.Data))
	case KindResource:
		if b.Data == nil {
			return b.Text
		}
		return fmt.Sprintf("[resource %s %s, %d bytes]", b.URI, b.MIME, len(b.Data))
	}
	return fmt.Sprintf("[unknown block kind %d]", b.Kind)
}

// wireBlock is the JSON form of a Block: MCP's content shape, plus "json".
type wireBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	JSON     json.RawMessage `json:"json,omitempty"`
	Data     string          `json:"data,omitempty"`
	MIMEType string          `json:"mimeType,omitempty"`
	URI      string          `json:"uri,omitempty"`
}

// MarshalJSON encodes the block as {"type": kind, ...} with binary data in
// base64, the shape MCP clients know.
func (b Block) MarshalJSON() ([]byte, error) {
	w := wireBlock{Type: b.Kind.String(), Text: b.Text, JSON: b.JSON, MIMEType: b.MIME, URI: b.URI}
	if b.Data != nil {
		w.Data = base64.StdEncoding.EncodeToString(b.Data)
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the form MarshalJSON writes.
func (b *Block) UnmarshalJSON(data []byte) error {
	var w wireBlock
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var kind Kind
	for _, k := range Kinds() {
		if k.String() == w.Type {
			kind = k
		}
	}
	if kind == 0 {
		return fmt.Errorf("unknown block type %q", w.Type)
	}
	*b = Block{Kind: kind, Text: w.Text, JSON: w.JSON, MIME: w.MIMEType, URI: w.URI}
	if w.Data != "" {
		d, err := base64.StdEncoding.DecodeString(w.Data)
		if err != nil {
			return fmt.Errorf("block data: %w", err)
		}
		b.Data = d
	}
	return nil
}

// wireResult is the JSON form of a Result.
type wireResult struct {
	Content []Block `json:"content"`
	IsError bool    `json:"isError,omitempty"`
}

// MarshalJSON encodes the result as {"content": [...], "isError": bool}.
func (r Result) MarshalJSON() ([]byte, error) {
	c := r.Blocks
	if c == nil {
		c = []Block{}
	}
	return json.Marshal(wireResult{Content: c, IsError: r.IsError})
}

// UnmarshalJSON decodes the form MarshalJSON writes.
func (r *Result) UnmarshalJSON(data []byte) error {
	var w wireResult
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Result{Blocks: w.Content, IsError: w.IsError}
	return nil
}

// PlainName renders a file name for a message or a listing. A name that is
// valid UTF-8 without control characters is itself; any other is quoted
// with Go escapes ("bad\xffname", "two\nlines"). Tool output reaches the
// model as JSON, which would turn invalid bytes into U+FFFD and make two
// different names look alike; escaped, each name stays distinct and can
// be typed back into a shell ($'bad\xffname').
func PlainName(name string) string {
	if utf8.ValidString(name) && strings.IndexFunc(name, unicode.IsControl) < 0 {
		return name
	}
	return strconv.Quote(name)
}
