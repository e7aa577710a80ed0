package ledger

import (
	"encoding/json"
	"testing"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"members sorted", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"nested sorted, arrays kept", `{"z":[3,1,{"y":1,"x":2}],"a":{"d":null,"c":true}}`, `{"a":{"c":true,"d":null},"z":[3,1,{"x":2,"y":1}]}`},
		{"whitespace dropped", " { \"a\" : [ 1 , 2 ] } \n", `{"a":[1,2]}`},
		{"last duplicate wins", `{"a":1,"a":2}`, `{"a":2}`},
		{"null kept", `{"default":null}`, `{"default":null}`},
		{"integral float", `1.0`, `1`},
		{"exponent integral", `1e3`, `1000`},
		{"negative zero", `-0.0`, `0`},
		{"fraction", `123.456`, `123.456`},
		{"small fraction", `0.000001`, `0.000001`},
		{"smaller fraction", `0.0000001`, `1e-7`},
		{"large", `1e21`, `1e+21`},
		{"below 1e21", `123456789012345678901`, `123456789012345680000`},
		{"mantissa exponent", `1.5e300`, `1.5e+300`},
		{"negative", `-2.50`, `-2.5`},
		{"out of range kept", `1e400`, `1e400`},
		{"string escapes", `"a\"b\\c\n\t\u0001\u00e9/"`, `"a\"b\\c\n\t\u0001é/"`},
		{"html not escaped", `"<&>"`, `"<&>"`},
		{"line separator raw", `"\u2028"`, "\"\u2028\""},
		{"utf16 order", `{"\uffff":1,"😀":2,"a":3}`, `{"a":3,"😀":2,"` + "\uffff" + `":1}`},
		{"prefix first", `{"ab":1,"a":2}`, `{"a":2,"ab":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if err != nil {
				t.Fatalf("Canonical(%s): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Canonical(%s) = %s, want %s", tc.in, got, tc.want)
			}
			again, err := Canonical(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"a":1} {"b":2}`, `[1,]`, `nope`, `{"a":1}x`} {
		if got, err := Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%q) = %s, want an error", in, got)
		}
	}
}

func TestCanonicalNumberMatchesFloat(t *testing.T) {
	t.Parallel()
	// Every printed number must denote the same double as its literal.
	for _, lit := range []string{"0.1", "1e-7", "5e-324", "1.7976931348623157e308", "9007199254740993", "123e-20", "-1.25e-5", "100", "1e20", "4.35"} {
		got := canonicalNumber(lit)
		var a, b float64
		if err := json.Unmarshal([]byte(lit), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got), &b); err != nil {
			t.Fatalf("%s printed as %q, which is not JSON: %v", lit, got, err)
		}
		if a != b {
			t.Errorf("%s printed as %s, which is %v, not %v", lit, got, b, a)
		}
	}
}
