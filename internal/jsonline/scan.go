package jsonline

import (
	"bytes"
	"encoding/json"
)

// frameScanner reads a JSON object in pieces, without holding it, and
// keeps its top-level "id" and whether it has a top-level "method": enough
// to tell a response too large to keep from a request or notification,
// and to answer its request. It only tracks nesting and strings; a line
// that is not JSON yields no id.
type frameScanner struct {
	depth     int
	inString  bool
	escaped   bool
	notObject bool
	expectKey bool // at depth 1, the next string is a member name
	inKey     bool
	key       []byte
	lastKey   string
	inID      bool // reading the value of the top-level "id"
	idValue   []byte
	id        []byte
	method    bool
}

// maxIDBytes bounds the id kept: a JSON-RPC id is a number or a short
// string; anything longer is not one to answer.
const maxIDBytes = 256

func (sc *frameScanner) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		// Most of a large message is the inside of strings; skip to the
		// next byte that matters with bytes.IndexByte (assembly), and
		// outside strings to the next structural byte.
		if sc.inString && !sc.escaped && !sc.inKey && !sc.inID {
			j := bytes.IndexByte(b[i:], '"')
			rest := b[i:]
			if j >= 0 {
				rest = rest[:j]
			}
			if k := bytes.IndexByte(rest, '\\'); k >= 0 {
				j = k
			}
			if j < 0 {
				return
			}
			i += j
		} else if !sc.inString && !sc.inID {
			j := bytes.IndexAny(b[i:], `"{}[]:,`)
			if j < 0 {
				return
			}
			i += j
		}
		c := b[i]
		if sc.inString {
			switch {
			case sc.escaped:
				sc.escaped = false
			case c == '\\':
				sc.escaped = true
			case c == '"':
				sc.inString = false
			}
			if sc.inKey {
				if sc.inString {
					sc.key = appendCapped(sc.key, c)
				} else {
					sc.inKey = false
					sc.lastKey = string(sc.key)
				}
			} else if sc.inID {
				sc.idValue = appendCapped(sc.idValue, c)
			}
			continue
		}
		switch c {
		case '"':
			sc.inString = true
			if sc.depth == 1 && sc.expectKey {
				sc.expectKey, sc.inKey, sc.key = false, true, sc.key[:0]
			} else if sc.inID {
				sc.idValue = appendCapped(sc.idValue, c)
			}
		case '{', '[':
			if sc.depth == 0 && c == '[' {
				sc.notObject = true
			}
			if sc.inID { // an object or array is no id
				sc.inID, sc.idValue = false, nil
			}
			sc.depth++
			if sc.depth == 1 {
				sc.expectKey = true
			}
		case '}', ']':
			if sc.depth == 1 {
				sc.endID()
			}
			sc.depth--
		case ':':
			if sc.depth == 1 {
				switch sc.lastKey {
				case "id":
					sc.inID, sc.idValue = true, sc.idValue[:0]
				case "method":
					sc.method = true
				}
			}
		case ',':
			if sc.depth == 1 {
				sc.endID()
				sc.expectKey = true
			}
		case ' ', '\t', '\r', '\n':
		default:
			if sc.inID {
				sc.idValue = appendCapped(sc.idValue, c)
			}
		}
	}
}

func (sc *frameScanner) endID() {
	if sc.inID {
		sc.inID = false
		sc.id = bytes.Clone(sc.idValue)
	}
}

func appendCapped(b []byte, c byte) []byte {
	if len(b) > maxIDBytes {
		return b
	}
	return append(b, c)
}

// responseID returns the id of the object scanned when it is a response
// (an id and no method) and the id is a number or a string.
func (sc *frameScanner) responseID() json.RawMessage {
	if sc.notObject || sc.method || len(sc.id) == 0 || len(sc.id) > maxIDBytes {
		return nil
	}
	var v any
	if json.Unmarshal(sc.id, &v) != nil {
		return nil
	}
	switch v.(type) {
	case float64, string:
		return json.RawMessage(sc.id)
	}
	return nil
}
