package connect_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
)

// dialLog is a transport that dials only 127.0.0.1 and records every
// other address it was asked for: a credential lookup that tries the
// network (an instance metadata service at 169.254.169.254, a cloud's
// token endpoint) is refused and named, never sent.
type dialLog struct {
	mu      sync.Mutex
	refused []string
}

// transports are the test clients' transports, whose idle connections
// TestMain closes before it looks for leaked goroutines.
var transports struct {
	sync.Mutex
	all []*http.Transport
}

func closeTransports() {
	transports.Lock()
	defer transports.Unlock()
	for _, tr := range transports.all {
		tr.CloseIdleConnections()
	}
}

func (d *dialLog) client() *http.Client {
	dialer := &net.Dialer{}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			if host != "127.0.0.1" {
				d.mu.Lock()
				d.refused = append(d.refused, addr)
				d.mu.Unlock()
				return nil, fmt.Errorf("test transport: %s is not on this machine", addr)
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	transports.Lock()
	transports.all = append(transports.all, tr)
	transports.Unlock()
	return &http.Client{Transport: tr}
}

func (d *dialLog) addresses() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.refused...)
}

var serviceKey = sync.OnceValue(func() []byte {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
})

// serviceAccount writes a Google service account key whose token
// endpoint is the fake's, as GOOGLE_APPLICATION_CREDENTIALS names one.
func serviceAccount(t *testing.T, srv *fakemodel.Server) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "key.json")
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "proj-from-key", "private_key_id": "k1",
		"private_key": string(serviceKey()), "client_email": "indusr@proj-from-key.iam.gserviceaccount.com",
		"client_id": "1", "token_uri": srv.URL + fakemodel.TokenPath,
	})
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// cloudEnv is the environment of a user of the cloud whose endpoint is
// the fake: credentials, region and project, and the switches that keep
// every lookup off the metadata services.
func cloudEnv(t *testing.T, api string, srv *fakemodel.Server) map[string]string {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "AWS_EC2_METADATA_DISABLED": "true", "NO_GCE_CHECK": "true",
		"AWS_CONFIG_FILE": filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "none"),
		"ANTHROPIC_API_KEY": "k-ant-must-not-travel"}
	switch api {
	case "bedrock":
		env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_REGION"] = "AKIDFAKE", "secret", "us-east-1"
		env["ANTHROPIC_BEDROCK_BASE_URL"] = srv.URL
	case "vertex":
		env["GOOGLE_APPLICATION_CREDENTIALS"] = serviceAccount(t, srv)
		env["CLOUD_ML_REGION"], env["ANTHROPIC_VERTEX_PROJECT_ID"] = "us-east5", "my-project"
		env["ANTHROPIC_VERTEX_BASE_URL"] = srv.URL
	}
	return env
}

// target is the model id and environment of a test that speaks api
// against srv.
func target(t *testing.T, api string, srv *fakemodel.Server) (string, map[string]string) {
	if id, ok := cloudModels[api]; ok {
		return id, cloudEnv(t, api, srv)
	}
	return modelOf(api), fakeEnv(srv)
}

var cloudModels = map[string]string{
	"bedrock": "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
	"vertex":  "vertex/claude-sonnet-4-5@20250929",
}

// Each cloud is reached at its own path with its own credentials, and
// Anthropic's key never leaves for another company's endpoint.
func TestCloudPathsAndCredentials(t *testing.T) {
	for _, api := range []string{"bedrock", "vertex"} {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t, fakemodel.Say("hello"))
			c := open(t, api, srv, -1)
			name := strings.TrimPrefix(cloudModels[api], api+"/")
			resp, err := c.Stream(context.Background(), provider.Request{Model: name, Messages: []provider.Message{provider.UserText("hi")}}, nil)
			if err != nil {
				t.Fatalf("%v; refusals %q", err, srv.Refusals())
			}
			if resp.Message.Text() != "hello" {
				t.Errorf("answer %+v", resp)
			}
			req := srv.Requests()[0]
			want := map[string]string{
				"bedrock": "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream",
				"vertex":  "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
			}[api]
			if req.Path != want || req.Model() != name {
				t.Errorf("path %s (model %s), want %s", req.Path, req.Model(), want)
			}
			auth := req.Header.Get("Authorization")
			if api == "bedrock" && !strings.Contains(auth, "AKIDFAKE/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") && api == "bedrock" {
				t.Errorf("bedrock request not signed with the user's key for us-east-1: %q", auth)
			}
			if api == "vertex" && !strings.HasPrefix(auth, "Bearer ya29.fake-") {
				t.Errorf("vertex request without the minted token: %q", auth)
			}
			if k := req.Header.Get("X-Api-Key"); k != "" || strings.Contains(string(req.Body), "k-ant") {
				t.Errorf("Anthropic's key was sent to %s", api)
			}
		})
	}
}

// A missing credential is an error naming what to set, found at open
// without the network: no metadata service is dialled.
func TestCloudCredentialsMissing(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		env      map[string]string
		want     []string
	}{
		{"bedrock no credentials", cloudModels["bedrock"], map[string]string{"AWS_REGION": "us-east-1"},
			[]string{"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK"}},
		{"bedrock no region", cloudModels["bedrock"], map[string]string{"AWS_ACCESS_KEY_ID": "AKIDFAKE", "AWS_SECRET_ACCESS_KEY": "s"},
			[]string{"AWS_REGION"}},
		{"vertex no credentials", cloudModels["vertex"], map[string]string{"CLOUD_ML_REGION": "global", "ANTHROPIC_VERTEX_PROJECT_ID": "p"},
			[]string{"gcloud auth application-default login", "GOOGLE_APPLICATION_CREDENTIALS"}},
		{"vertex no region", cloudModels["vertex"], map[string]string{}, []string{"CLOUD_ML_REGION"}},
		{"vertex unreadable key", cloudModels["vertex"], map[string]string{"CLOUD_ML_REGION": "global", "GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/key.json"},
			[]string{"GOOGLE_APPLICATION_CREDENTIALS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home, "AWS_EC2_METADATA_DISABLED": "true", "NO_GCE_CHECK": "true",
				"AWS_CONFIG_FILE": filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "none")}
			for k, v := range tc.env {
				env[k] = v
			}
			var dials dialLog
			_, _, err := connect.Open(tc.id, connect.Config{Getenv: func(k string) string { return env[k] }, HTTPClient: dials.client()})
			if err == nil {
				t.Fatal("opened without credentials")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
			if a := dials.addresses(); len(a) != 0 {
				t.Errorf("dialled %v looking for credentials", a)
			}
		})
	}
}

// Without AWS_EC2_METADATA_DISABLED, a machine that is not an EC2
// instance never asks the instance metadata service (the AWS tools would,
// and wait on it); the service's address is the fake's here, so even a
// lookup made by mistake would stay on this machine and be counted.
func TestBedrockAsksNoMetadataOffEC2(t *testing.T) {
	var hits int32
	var mu sync.Mutex
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer imds.Close()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
		"AWS_CONFIG_FILE": filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "none")}
	for _, disabled := range []string{"", "true"} {
		env["AWS_EC2_METADATA_DISABLED"] = disabled
		var dials dialLog
		_, _, err := connect.Open(cloudModels["bedrock"], connect.Config{Getenv: func(k string) string { return env[k] }, HTTPClient: dials.client()})
		if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
			t.Fatalf("err %v", err)
		}
		if a := dials.addresses(); len(a) != 0 {
			t.Errorf("dialled %v", a)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 && !onEC2ForTest() {
		t.Errorf("the instance metadata service was asked %d times on a machine that is not EC2", hits)
	}
}

// onEC2ForTest says whether this machine says it is EC2 (where asking
// the service is right).
func onEC2ForTest() bool {
	b, _ := os.ReadFile("/sys/class/dmi/id/sys_vendor")
	return strings.Contains(strings.ToLower(string(b)), "amazon")
}

// Claude Code's switches send anthropic/ models through a cloud: the
// Bedrock id of the same model, the Vertex name as it is.
func TestClaudeCodeCloudSwitches(t *testing.T) {
	for _, api := range []string{"bedrock", "vertex"} {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t, fakemodel.Say("via the cloud"))
			env := cloudEnv(t, api, srv)
			env[map[string]string{"bedrock": connect.UseBedrockVar, "vertex": connect.UseVertexVar}[api]] = "1"
			var dials dialLog
			c, m, err := connect.Open("claude-sonnet-4-5", connect.Config{Getenv: func(k string) string { return env[k] }, HTTPClient: dials.client(), MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"bedrock": "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "vertex": "vertex/claude-sonnet-4-5"}[api]
			if m.String() != want {
				t.Errorf("model %s, want %s", m, want)
			}
			resp, err := c.Stream(context.Background(), provider.Request{Model: m.Name, Messages: []provider.Message{provider.UserText("hi")}}, nil)
			if err != nil || resp.Message.Text() != "via the cloud" || resp.Cost <= 0 {
				t.Fatalf("%+v %v; refusals %q", resp, err, srv.Refusals())
			}
		})
	}
}

// A cloud's refusal reaches the caller with its status and message, in
// the neutral form the retries and the conductor read.
func TestCloudErrors(t *testing.T) {
	for _, api := range []string{"bedrock", "vertex"} {
		t.Run(api, func(t *testing.T) {
			srv := fakemodel.Start(t, fakemodel.Reply{Status: 400, Blocks: []fakemodel.Block{fakemodel.Text("prompt is too long: 210000 tokens > 200000 maximum")}})
			c := open(t, api, srv, 3)
			_, err := c.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, nil)
			var se *provider.StatusError
			if !errors.As(err, &se) || se.Code != 400 || !strings.Contains(se.Message, "prompt is too long") || len(srv.Requests()) != 1 {
				t.Fatalf("err %v (%+v) after %d requests", err, se, len(srv.Requests()))
			}
		})
	}
}
