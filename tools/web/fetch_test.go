package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func call(t testing.TB, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	return callCtx(t, context.Background(), tl, env, in)
}

func callCtx(t testing.TB, ctx context.Context, tl tool.Tool, env *tool.Env, in map[string]any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	return tl.Run(ctx, raw, env)
}

// serve starts a test server on 127.0.0.1 that closes with the test.
func serve(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

const article = `<!doctype html><html><head><title>T</title><style>body{color:red}</style>
<script>alert("tracking")</script></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About us</a></nav>
<main><h1>Install guide</h1>
<p>Read the <a href="/docs/setup">setup notes</a> first.</p>
<ul><li>alpha</li><li>beta</li></ul>
<pre><code class="language-go">fmt.Println("hi")</code></pre>
<table><thead><tr><th>name</th><th>size</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>
</main><aside>Sponsored links</aside></body></html>`

func htmlHandler(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

func TestFetchFormats(t *testing.T) {
	t.Parallel()
	srv := serve(t, htmlHandler(article))
	env := tool.NewEnv(t.TempDir())
	tl := FetchTool(Options{})
	for _, tc := range []struct {
		format      string
		want, avoid []string
	}{
		{"markdown", []string{"URL: " + srv.URL + "/page", "Status: 200 OK", "# Install guide",
			"[setup notes](" + srv.URL + "/docs/setup)", "- alpha", "```go\nfmt.Println(\"hi\")\n```", "| name | size |"},
			[]string{"alert", "color:red", "About us", "Sponsored"}},
		{"text", []string{"Install guide\n\nRead the setup notes first.", "alpha\n\nbeta", "name size\n\na 1"},
			[]string{"alert", "<p>", "About us", "Sponsored", "#"}},
		{"html", []string{"<script>alert(\"tracking\")</script>", "<h1>Install guide</h1>"}, nil},
		{"", []string{"# Install guide"}, nil},
	} {
		t.Run("format="+tc.format, func(t *testing.T) {
			in := map[string]any{"url": srv.URL + "/page"}
			if tc.format != "" {
				in["format"] = tc.format
			}
			r := call(t, tl, env, in)
			out := r.PlainText()
			if r.IsError {
				t.Fatal(out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestFetchRefusals(t *testing.T) {
	t.Parallel()
	env := tool.NewEnv(t.TempDir())
	tl := FetchTool(Options{})
	for _, tc := range []struct{ name, url, want string }{
		{"file scheme", "file:///etc/passwd", `scheme "file" is not supported`},
		{"ftp scheme", "ftp://example.com/x", `scheme "ftp" is not supported`},
		{"javascript", "javascript:alert(1)", `scheme "javascript" is not supported`},
		{"credentials", "https://user:secret@example.com/", "does not send credentials"},
		{"no host", "http:///path", "has no host"},
		{"not a url", "http://[::1", "is not a valid URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, tl, env, map[string]any{"url": tc.url})
			if !r.IsError || !strings.Contains(r.PlainText(), tc.want) {
				t.Errorf("got %v:\n%s\nwant an error with %q", r.IsError, r.PlainText(), tc.want)
			}
		})
	}
	if r := call(t, tl, env, map[string]any{"url": "http://x", "format": "pdf"}); !r.IsError || !strings.Contains(r.PlainText(), "format") {
		t.Errorf("unknown format accepted: %s", r.PlainText())
	}
}

func TestFetchRedirects(t *testing.T) {
	t.Parallel()
	var other *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			htmlHandler("<p>landed</p>")(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
	})
	srv := serve(t, mux.ServeHTTP)
	other = srv
	env := tool.NewEnv(t.TempDir())
	tl := FetchTool(Options{})
	for _, tc := range []struct {
		name, path string
		isErr      bool
		want       string
	}{
		{"ten redirects are followed", "/hop/10", false, "URL: " + srv.URL + "/hop/0\nStatus: 200 OK"},
		{"eleven are too many", "/hop/11", true, "after 10 redirects"},
		{"a loop stops", "/loop", true, "after 10 redirects"},
		{"another host is reported", "/away", false, "redirects to another host: http://localhost:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tl, env, map[string]any{"url": srv.URL + tc.path})
			if r.IsError != tc.isErr || !strings.Contains(r.PlainText(), tc.want) {
				t.Errorf("is_error=%v:\n%s\nwant is_error=%v and %q", r.IsError, r.PlainText(), tc.isErr, tc.want)
			}
		})
	}
	if r := call(t, tl, env, map[string]any{"url": srv.URL + "/away"}); !strings.Contains(r.PlainText(), "Status: 302 Found") ||
		!strings.Contains(r.PlainText(), "not followed") {
		t.Errorf("cross-host report lacks status or advice:\n%s", r.PlainText())
	}
}

func TestFetchLimits(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", MaxBody+1)
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, big) })
	mux.HandleFunc("/big-declared", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		fmt.Fprint(w, big)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/long", htmlHandler("<p>"+strings.Repeat("é", 300)+"</p>"))
	mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no such page", http.StatusNotFound) })
	srv := serve(t, mux.ServeHTTP)
	env := tool.NewEnv(t.TempDir())
	tl, impatient := FetchTool(Options{}), FetchTool(Options{Timeout: 300 * time.Millisecond})
	for _, tc := range []struct {
		name  string
		in    map[string]any
		isErr bool
		want  string
	}{
		{"streamed body over 10 MB", map[string]any{"url": srv.URL + "/big"}, true, "over the 10 MB limit"},
		{"declared body over 10 MB", map[string]any{"url": srv.URL + "/big-declared"}, true, "over the 10 MB limit"},
		{"timeout", map[string]any{"url": srv.URL + "/slow", "impatient": true}, true, "did not answer within 300ms"},
		{"max_chars", map[string]any{"url": srv.URL + "/long", "max_chars": 100}, false, "\n" + strings.Repeat("é", 100) + "\n\n[Content truncated: showing 100 of 300 characters."},
		{"404", map[string]any{"url": srv.URL + "/missing"}, true, "answered 404 Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			use := tl
			if tc.in["impatient"] == true {
				use = impatient
				delete(tc.in, "impatient")
			}
			r := call(t, use, env, tc.in)
			if r.IsError != tc.isErr || !strings.Contains(r.PlainText(), tc.want) {
				t.Errorf("is_error=%v:\n%.600s\nwant is_error=%v and %q", r.IsError, r.PlainText(), tc.isErr, tc.want)
			}
		})
	}
}

func TestFetchPrivateAddressPolicy(t *testing.T) {
	t.Parallel()
	target := serve(t, htmlHandler("<p>secret</p>"))
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	// public.test first resolves to an allowed address, then rebinds to
	// a refused one: the second lookup happens on the redirect.
	second, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	inner := &httptest.Server{Listener: second, Config: &http.Server{Handler: htmlHandler("<p>inner</p>")}}
	inner.Start()
	t.Cleanup(inner.Close)
	innerPort := inner.URL[strings.LastIndex(inner.URL, ":")+1:]
	front := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://public.test:"+innerPort+"/", http.StatusFound)
	})
	frontPort := front.URL[strings.LastIndex(front.URL, ":")+1:]
	var lookups atomic.Int32
	opts := Options{
		RefusePrivate: true,
		Allow:         []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "intranet.test":
				return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
			case "public.test":
				if lookups.Add(1) == 1 {
					return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
				}
				return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
	}
	env := tool.NewEnv(t.TempDir())
	strict := FetchTool(Options{RefusePrivate: true})
	for _, tc := range []struct {
		name string
		tl   tool.Tool
		url  string
		want string
	}{
		{"loopback literal", strict, target.URL, "127.0.0.1 is a loopback address"},
		{"localhost by name", strict, "http://localhost:" + port + "/", "localhost resolves to"},
		{"private behind a DNS name", FetchTool(opts), "http://intranet.test:" + innerPort + "/", "intranet.test resolves to 127.0.0.2, a loopback address"},
		{"private behind a redirect", FetchTool(opts), "http://public.test:" + frontPort + "/", "public.test resolves to 127.0.0.2"},
		{"link-local metadata", strict, "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
		{"this network", strict, "http://0.0.0.0:" + port + "/", `0.0.0.0 is a "this network" (0.0.0.0/8) address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tc.tl, env, map[string]any{"url": tc.url})
			if !r.IsError || !strings.Contains(r.PlainText(), tc.want) || !strings.Contains(r.PlainText(), "refuses private") {
				t.Errorf("is_error=%v:\n%s\nwant a refusal with %q", r.IsError, r.PlainText(), tc.want)
			}
		})
	}
	// The policy is off by default, and Allow opens a prefix.
	for _, tl := range []tool.Tool{FetchTool(Options{}), FetchTool(Options{RefusePrivate: true, Allow: opts.Allow})} {
		if r := call(t, tl, env, map[string]any{"url": target.URL}); r.IsError || !strings.Contains(r.PlainText(), "secret") {
			t.Errorf("an allowed local server was not fetched:\n%s", r.PlainText())
		}
	}
}

func TestPolicyDecodesEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	strict := Options{RefusePrivate: true}
	for _, tc := range []struct {
		addr    string
		refused bool
		kind    string
	}{
		{"64:ff9b::7f00:1", true, "loopback"},           // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true, "link-local"},      // NAT64 of 169.254.169.254
		{"64:ff9b::10.0.0.1", true, "private"},          // NAT64 of 10.0.0.1
		{"::127.0.0.1", true, "loopback"},               // IPv4-compatible
		{"::192.168.1.1", true, "private"},              // IPv4-compatible
		{"::ffff:127.0.0.1", true, "loopback"},          // IPv4-mapped
		{"0.1.2.3", true, `"this network" (0.0.0.0/8)`}, // this network
		{"0.0.0.0", true, `"this network" (0.0.0.0/8)`},
		{"255.255.255.255", true, "broadcast"},
		{"::1", true, "loopback"},
		{"::", true, "unspecified"},
		{"64:ff9b::8.8.8.8", false, ""},
		{"::8.8.8.8", false, ""},
		{"8.8.8.8", false, ""},
		{"2606:4700::1111", false, ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := strict.refused(a); got != tc.refused {
			t.Errorf("%s: refused=%v, want %v", tc.addr, got, tc.refused)
		}
		if tc.refused && kindOf(a) != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.addr, kindOf(a), tc.kind)
		}
	}
	// Allow judges the decoded address too.
	allow := Options{RefusePrivate: true, Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	if allow.refused(netip.MustParseAddr("64:ff9b::10.0.0.1")) {
		t.Error("an allowed prefix reached through NAT64 was refused")
	}
}

func TestFetchCacheIsPerDeckAndExpires(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hit %d", hits.Add(1))
	})
	env := tool.NewEnv(t.TempDir())
	a := FetchTool(Options{})
	first := call(t, a, env, map[string]any{"url": srv.URL})
	again := call(t, a, env, map[string]any{"url": srv.URL})
	if !strings.Contains(first.PlainText(), "hit 1") || !strings.Contains(again.PlainText(), "hit 1") ||
		!strings.Contains(again.PlainText(), "(from the cache") {
		t.Errorf("second fetch was not cached:\n%s\n---\n%s", first.PlainText(), again.PlainText())
	}
	if other := call(t, FetchTool(Options{}), env, map[string]any{"url": srv.URL}); !strings.Contains(other.PlainText(), "hit 2") {
		t.Errorf("another deck shared the cache:\n%s", other.PlainText())
	}
	now := time.Now()
	c := newCache(func() time.Time { return now })
	c.put(&page{url: "u", fetched: now})
	now = now.Add(CacheTTL)
	if _, ok := c.get("u"); ok {
		t.Error("a page 15 minutes old was served from the cache")
	}
	for i := range cacheMaxPages + 10 {
		c.put(&page{url: fmt.Sprint(i), fetched: now, body: []byte("x")})
	}
	if c.len() != cacheMaxPages {
		t.Errorf("cache holds %d pages, bound is %d", c.len(), cacheMaxPages)
	}
}

var png1x1 = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestFetchBinarySavedToDownloads(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, _ *http.Request) { w.Write(png1x1) })
	mux.HandleFunc("/paper", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4 fake")
	})
	srv := serve(t, mux.ServeHTTP)
	dir := t.TempDir()
	env := tool.NewEnv(dir)
	tl := FetchTool(Options{})
	saved := regexp.MustCompile(`saved to (\S+)\. `)
	for _, tc := range []struct {
		path, suffix string
		data         []byte
		image        bool
	}{
		{"/logo.png", "-logo.png", png1x1, true},
		{"/paper", "-paper.pdf", []byte("%PDF-1.4 fake"), false},
	} {
		r := call(t, tl, env, map[string]any{"url": srv.URL + tc.path})
		m := saved.FindStringSubmatch(r.PlainText())
		if r.IsError || m == nil {
			t.Fatalf("%s: %s", tc.path, r.PlainText())
		}
		if !strings.HasPrefix(m[1], filepath.Join(dir, ".indusvx", "downloads")+"/") || !strings.HasSuffix(m[1], tc.suffix) {
			t.Errorf("%s saved to %s", tc.path, m[1])
		}
		if got, _ := os.ReadFile(m[1]); string(got) != string(tc.data) {
			t.Errorf("%s: saved file differs", tc.path)
		}
		if hasImage := len(r.Blocks) == 2 && r.Blocks[1].Kind == tool.KindImage; hasImage != tc.image {
			t.Errorf("%s: image block = %v, want %v", tc.path, hasImage, tc.image)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".indusvx", ".gitignore")); err != nil {
		t.Errorf("the state folder was created without its .gitignore: %v", err)
	}
}

func TestFetchReportsProgressPerMB(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("a", 3<<20+100)
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) })
	var msgs []string
	ctx := tool.WithProgress(context.Background(), func(_, _ float64, m string) { msgs = append(msgs, m) })
	r := callCtx(t, ctx, FetchTool(Options{}), tool.NewEnv(t.TempDir()), map[string]any{"url": srv.URL, "max_chars": 10})
	if r.IsError {
		t.Fatal(r.PlainText())
	}
	if want := []string{"downloaded 1 MB", "downloaded 2 MB", "downloaded 3 MB"}; strings.Join(msgs, ",") != strings.Join(want, ",") {
		t.Errorf("progress = %q, want %q", msgs, want)
	}
}
