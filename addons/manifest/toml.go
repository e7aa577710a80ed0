package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/indusagi/induscode/addons"
)

// Decode decodes the TOML data of file into v. A problem is a load fault
// naming the file, the line and, when the decoder knows it, the field;
// what ("manifest", "profile") begins its message.
func Decode(file, what string, data []byte, v any) (toml.MetaData, error) {
	md, err := toml.Decode(string(data), v)
	if err == nil {
		return md, nil
	}
	f := &addons.Fault{Kind: addons.LoadFault, File: file, Msg: what + " is not valid TOML"}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		f.Line = pe.Position.Line
		f.Msg += ": " + pe.Message
		if pe.LastKey != "" {
			f.Msg += " (field " + pe.LastKey + ")"
		}
	} else if m := typeError.FindStringSubmatch(err.Error()); m != nil {
		f.Line, _ = strconv.Atoi(m[1])
		f.Msg = fmt.Sprintf("field %s: %s", m[2], strings.TrimSpace(m[3]))
	} else {
		f.Err = err
	}
	return md, f
}

// typeError picks the line, the field and the complaint out of the
// decoder's message for a value of the wrong type, which carries no
// position of its own.
var typeError = regexp.MustCompile(`line (\d+) \(last key "([^"]*)"\):(.*)`)

// KeyLine returns the line of field at the top level (table ""), in the
// index-th [[table]], or in any [[table]] when index is -1; when the
// field is absent, the line of the table's header; 0 when nothing fits.
func KeyLine(data []byte, table string, index int, field string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line, header, seen := 0, 0, -1
	inside := table == ""
	keyRe := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(field) + `"?\s*=`)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "[") {
			name := strings.TrimSpace(strings.Trim(text, "[] \t"))
			if i := strings.IndexByte(text, '#'); i > 0 {
				name = strings.TrimSpace(strings.Trim(text[:i], "[] \t"))
			}
			if table != "" && name == table {
				seen++
				inside = index < 0 || seen == index
				if inside {
					header = line
				}
			} else {
				inside = false
			}
			continue
		}
		if inside && keyRe.MatchString(sc.Text()) {
			return line
		}
	}
	return header
}
