package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/indusagi/induscode/tool"
)

// Fetch limits. Ten redirects and sixty seconds are the bounds the issue
// sets (browsers allow about twenty redirects; an agent rarely needs more
// than two). Ten megabytes covers nearly every documentation page and
// keeps one call from filling memory.
const (
	MaxRedirects    = 10
	FetchTimeout    = 60 * time.Second
	MaxBody         = 10 << 20
	DefaultMaxChars = 100_000
	// maxMaxChars is the largest max_chars a call may ask for: a million
	// characters is already more than most model contexts hold.
	maxMaxChars = 1_000_000
)

// The output formats of webfetch.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatHTML     = "html"
)

type fetchInput struct {
	URL      string `json:"url" jsonschema:"The http or https address to fetch."`
	Format   string `json:"format,omitempty" jsonschema:"markdown (default): HTML converted to Markdown; text: the readable text only; html: the page as served."`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"Return at most this many characters of content (default 100000)."`
}

// errTooManyRedirects ends a redirect chain longer than MaxRedirects.
var errTooManyRedirects = errors.New("too many redirects")

// fetcher is one webfetch tool: its client, policy and cache.
type fetcher struct {
	opts   Options
	client *http.Client
	cache  *cache
}

// FetchTool returns a webfetch tool with its own response cache; build one
// per deck.
func FetchTool(opts Options) tool.Tool {
	f := newFetcher(opts)
	return tool.Must(tool.New(tool.Spec{
		Name:  "webfetch",
		Label: "Fetch URL",
		Description: "Fetch one web page (http or https) and return its content: Markdown by default, plain text with " +
			"format=text, or the HTML as served with format=html. The result starts with the final URL and status code. " +
			"Up to 10 redirects on the same host are followed; a redirect to another host is reported so you can decide " +
			"whether to fetch it. Bodies over 10 MB are refused. PDFs, images and other binary files are saved under " +
			".indusvx/downloads/ and their path returned. Output is capped at max_chars (default 100000). Responses are " +
			"cached for 15 minutes, so fetching the same URL again is cheap.",
		ReadOnly: true,
	}, f.run, fetchSchema))
}

// fetchSchema is a package value, so the schema is built once although
// every deck builds its own webfetch (for its own cache).
var fetchSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetEnum(s, "format", FormatMarkdown, FormatText, FormatHTML)
	tool.SetDefault(s, "format", FormatMarkdown)
	tool.SetRange(s, "max_chars", 1, maxMaxChars)
	tool.SetDefault(s, "max_chars", DefaultMaxChars)
})

func newFetcher(opts Options) *fetcher {
	f := &fetcher{opts: opts, cache: newCache(time.Now)}
	tr := &http.Transport{
		DialContext:           f.opts.dialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: FetchTimeout,
	}
	if !opts.RefusePrivate {
		// A proxy would make the policy check the proxy's address
		// instead of the target's, so it is only honoured with the
		// policy off.
		tr.Proxy = http.ProxyFromEnvironment
	}
	f.client = &http.Client{Transport: tr, CheckRedirect: checkRedirect}
	return f
}

// checkRedirect follows redirects on the same host name only, at most
// MaxRedirects of them; a redirect elsewhere ends the chain so the model
// sees where it leads.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return errTooManyRedirects
	}
	if !strings.EqualFold(req.URL.Hostname(), via[len(via)-1].URL.Hostname()) {
		return http.ErrUseLastResponse
	}
	if err := checkURL(req.URL); err != nil {
		return err
	}
	return nil
}

// checkURL refuses what webfetch never requests.
func checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("the scheme %q is not supported; webfetch fetches http and https addresses only", u.Scheme)
	}
	if u.User != nil {
		return errors.New("the URL carries a user name or password; webfetch does not send credentials, remove them from the URL")
	}
	if u.Hostname() == "" {
		return errors.New("the URL has no host; give a full address such as https://example.com/page")
	}
	return nil
}

func (f *fetcher) timeout() time.Duration {
	if f.opts.Timeout > 0 {
		return f.opts.Timeout
	}
	return FetchTimeout
}

func (f *fetcher) run(ctx context.Context, in fetchInput, env *tool.Env) tool.Result {
	u, err := url.Parse(strings.TrimSpace(in.URL))
	if err != nil {
		return tool.Errorf("webfetch: %q is not a valid URL (%v); give a full address such as https://example.com/page", in.URL, err)
	}
	if err := checkURL(u); err != nil {
		return tool.Errorf("webfetch refused %s: %v", in.URL, err)
	}
	if in.Format == "" {
		in.Format = FormatMarkdown
	}
	if in.MaxChars <= 0 {
		in.MaxChars = DefaultMaxChars
	}
	key := u.String()
	p, cached := f.cache.get(key)
	if !cached {
		var res *tool.Result
		if p, res = f.get(ctx, u); res != nil {
			return *res
		}
		if p.status < 400 {
			f.cache.put(p)
		}
	}
	return render(p, in, env, cached)
}

// get performs the request and reads the body within the limits. A
// failure comes back as the result to return.
func (f *fetcher) get(ctx context.Context, u *url.URL) (*page, *tool.Result) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	fail := func(format string, args ...any) (*page, *tool.Result) {
		r := tool.Errorf(format, args...)
		return nil, &r
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail("webfetch: cannot build a request for %s: %v", u, err)
	}
	req.Header.Set("User-Agent", "induscode-webfetch/1 (+https://github.com/indusagi/induscode)")
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return fail("%s", explainFetchError(u.String(), err, f.timeout()))
	}
	defer resp.Body.Close()
	p := &page{url: u.String(), final: resp.Request.URL.String(), status: resp.StatusCode,
		statusText: http.StatusText(resp.StatusCode), contentType: resp.Header.Get("Content-Type"), fetched: time.Now()}
	if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
		if next, err := resp.Request.URL.Parse(loc); err == nil {
			p.redirect = next.String()
			return p, nil
		}
	}
	if resp.ContentLength > MaxBody {
		return fail("webfetch: %s is %d bytes, over the %d MB limit; fetch a smaller page or a specific section", p.final, resp.ContentLength, MaxBody>>20)
	}
	body, err := io.ReadAll(&progressReader{ctx: ctx, r: io.LimitReader(resp.Body, MaxBody+1), total: resp.ContentLength})
	if err != nil {
		return fail("%s", explainFetchError(p.final, err, f.timeout()))
	}
	if len(body) > MaxBody {
		return fail("webfetch: the body of %s is over the %d MB limit; fetch a smaller page or a specific section", p.final, MaxBody>>20)
	}
	p.body = body
	return p, nil
}

// explainFetchError turns a transport error into a sentence that says
// what happened and what to do.
func explainFetchError(u string, err error, timeout time.Duration) string {
	var refused *RefusedError
	var nerr net.Error
	var dns *net.DNSError
	switch {
	case errors.As(err, &refused):
		return fmt.Sprintf("webfetch refused %s: %v. Fetch a public address instead.", u, refused)
	case errors.Is(err, errTooManyRedirects):
		return fmt.Sprintf("webfetch gave up on %s after %d redirects (a redirect loop?); fetch the final address directly", u, MaxRedirects)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Sprintf("webfetch: %s did not answer within %s; try again later or fetch a smaller page", u, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("webfetch: the fetch of %s was cancelled", u)
	case errors.As(err, &dns):
		return fmt.Sprintf("webfetch: cannot resolve the host of %s (%v); check the address", u, dns)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Sprintf("webfetch could not fetch %s: %v", u, err)
}

// progressReader reports progress once per megabyte read.
type progressReader struct {
	ctx   context.Context
	r     io.Reader
	total int64
	done  int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	before := p.done >> 20
	p.done += int64(n)
	if mb := p.done >> 20; mb > before {
		total := float64(max(p.total, 0))
		tool.ReportProgress(p.ctx, float64(p.done), total, fmt.Sprintf("downloaded %d MB", mb))
	}
	return n, err
}
