package web

import "testing"

func TestDecodeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"utf-8 as is", "text/html", []byte("café €"), "café €"},
		{"latin-1 header", "text/plain; charset=ISO-8859-1", []byte("caf\xe9"), "café"},
		{"windows-1252 quotes", "text/plain; charset=windows-1252", []byte("\x93hi\x94 \x80"), "“hi” €"},
		{"meta tag", "text/html", []byte("<meta charset=\"latin1\"><p>na\xefve</p>"), `<meta charset="latin1"><p>naïve</p>`},
		{"http-equiv meta", "text/html", []byte("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\xfc"), `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">ü`},
		{"unknown charset replaced", "text/plain; charset=shift_jis", []byte("a\x82\xa0b"), "a\uFFFDb"}, // a run of bad bytes becomes one mark
		{"no charset replaced", "text/plain", []byte("a\xffb"), "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := decodeText(tc.body, tc.contentType); got != tc.want {
				t.Errorf("decodeText = %q, want %q", got, tc.want)
			}
		})
	}
}
