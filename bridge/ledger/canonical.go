package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the canonical form of the JSON value in raw: object
// members sorted by the UTF-16 code units of their names (recursively; the
// last of duplicate names wins, as in JavaScript), arrays in their order, no
// insignificant whitespace, strings escaped as JSON.stringify escapes them and
// numbers printed as JavaScript prints them (1.0 is 1, 1e21 is 1e+21). Two
// values that differ only in member order or formatting have the same
// canonical form. raw must hold exactly one JSON value.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("canonical JSON: trailing data after the value")
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	writeCanonical(&buf, v)
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		buf.WriteString(canonicalNumber(string(x)))
	case string:
		writeString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			writeCanonical(buf, x[k])
		}
		buf.WriteByte('}')
	default:
		// The decoder yields only the types above.
		panic(fmt.Sprintf("canonical JSON: unexpected %T", v))
	}
}

// compareUTF16 orders strings by their UTF-16 code units, the order of
// JavaScript's default sort, which differs from byte order for characters
// above U+FFFF against U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := utf16Units(ra), utf16Units(rb)
			return slices.Compare(ua[:], ub[:])
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

func utf16Units(r rune) [2]uint16 {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return [2]uint16{uint16(hi), uint16(lo)}
	}
	return [2]uint16{uint16(r), 0}
}

// writeString writes s quoted as JSON.stringify does: only '"', '\\' and
// control characters are escaped; everything else is written as UTF-8.
func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[c>>4])
			buf.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// canonicalNumber prints a JSON number literal the way JavaScript's
// Number.prototype.toString prints the double it denotes (ECMA-262
// Number::toString, as RFC 8785 uses it). A literal outside the range of a
// double is kept as written: JavaScript would turn it into null, which would
// make different schemas collide.
func canonicalNumber(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return lit
	}
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-tripping digits d1.d2d3...e±x; the value is
	// 0.digits × 10^n with n = x+1.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	n := exp + 1
	k := len(digits)
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		expSign := "+"
		if n-1 < 0 {
			expSign = "-"
		}
		x := n - 1
		if x < 0 {
			x = -x
		}
		out = digits[:1]
		if k > 1 {
			out += "." + digits[1:]
		}
		out += "e" + expSign + strconv.Itoa(x)
	}
	return sign + out
}
