package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

func cloudPost(t *testing.T, s *Server, path, auth, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
		req.Header.Set("X-Amz-Date", "20261128T170000Z")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const (
	bedrockPath = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
	sigv4       = "AWS4-HMAC-SHA256 Credential=AKIDFAKE/20261128/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
	cloudBody   = `{"anthropic_version":"2026-10-21","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
)

// Bedrock's answer is an AWS event stream: each frame a chunk event whose
// payload carries one of the Messages API's events in base64, in the
// Messages API's order, without pings.
func TestBedrockEventStream(t *testing.T) {
	s := Start(t, Reply{Blocks: []Block{Text("hello"), ToolUse("read", `{"path":"a"}`)}})
	resp := cloudPost(t, s, bedrockPath, sigv4, cloudBody)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.amazon.eventstream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	dec := eventstream.NewDecoder()
	var types []string
	var text strings.Builder
	for {
		msg, err := dec.Decode(resp.Body, nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h := msg.Headers.Get(":event-type"); h == nil || h.String() != "chunk" {
			t.Fatalf("frame headers %v", msg.Headers)
		}
		var chunk struct{ Bytes string }
		json.Unmarshal(msg.Payload, &chunk)
		raw, err := base64.StdEncoding.DecodeString(chunk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type  string
			Delta struct{ Text string }
		}
		json.Unmarshal(raw, &ev)
		types = append(types, ev.Type)
		text.WriteString(ev.Delta.Text)
	}
	got := strings.Join(types, ",")
	if !strings.HasPrefix(got, "message_start,content_block_start,content_block_delta") || !strings.HasSuffix(got, "message_delta,message_stop") || strings.Contains(got, "ping") {
		t.Errorf("events %s", got)
	}
	if text.String() != "hello" || s.Requests()[0].Model() != "us.anthropic.claude-sonnet-4-5-20250929-v1:0" {
		t.Errorf("text %q, model %q", text.String(), s.Requests()[0].Model())
	}
}

// Each cloud refuses what it refuses: a request without its credentials,
// a body naming the model (the path names it) or lacking
// anthropic_version; Bedrock's errors are its {"message"} with the
// exception's name in a header, Vertex's quota error is Google's.
func TestCloudsRefuse(t *testing.T) {
	vertexPath := "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"
	for _, tc := range []struct {
		name, path, auth, body string
		status                 int
		want, errType          string
	}{
		{"bedrock unsigned", bedrockPath, "", cloudBody, 403, "Missing Authentication Token", "AccessDeniedException"},
		{"bedrock model in body", bedrockPath, sigv4, `{"anthropic_version":"x","model":"m","messages":[]}`, 400, "extraneous key [model]", "ValidationException"},
		{"bedrock no version", bedrockPath, sigv4, `{"messages":[{"role":"user","content":"hi"}]}`, 400, "anthropic_version", "ValidationException"},
		{"bedrock anthropic rule", bedrockPath, sigv4, `{"anthropic_version":"x","messages":[{"role":"assistant","content":"x"}]}`, 400, "first message", "ValidationException"},
		{"vertex without token", vertexPath, "", cloudBody, 401, "UNAUTHENTICATED", ""},
		{"vertex made-up token", vertexPath, "Bearer ya29.guess", cloudBody, 401, "UNAUTHENTICATED", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Start(t, Say("never"))
			resp := cloudPost(t, s, tc.path, tc.auth, tc.body)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) || !strings.HasPrefix(resp.Header.Get("X-Amzn-Errortype"), tc.errType) {
				t.Fatalf("status %d, body %s, type %q", resp.StatusCode, b, resp.Header.Get("X-Amzn-Errortype"))
			}
		})
	}
	// A token the fake minted opens Vertex; a 429 there is Google's.
	s := Start(t, Reply{Status: 429, RetryAfter: "2"})
	tok, err := http.PostForm(s.URL+TokenPath, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	var minted struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(tok.Body).Decode(&minted)
	tok.Body.Close()
	resp := cloudPost(t, s, vertexPath, "Bearer "+minted.AccessToken, cloudBody)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(b), "RESOURCE_EXHAUSTED") {
		t.Fatalf("status %d retry-after %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
}
