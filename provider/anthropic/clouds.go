package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/indusagi/induscode/provider"
)

// Cloud is how to reach Anthropic's models through Amazon Bedrock or
// Google Vertex AI: the SDK's own bedrock and vertex request options,
// with credentials found as the clouds' own tools find them.
type Cloud struct {
	// Getenv reads a variable; nil means os.Getenv.
	Getenv func(string) string
	// BaseURL replaces the cloud's endpoint (a gateway, a test server);
	// "" means the region's.
	BaseURL string
	// HTTPClient carries the model requests; nil means the default
	// client.
	HTTPClient *http.Client
	// LookupClient carries the credential lookups that go over the
	// network (an SSO or STS exchange, an instance's metadata, an OAuth
	// token); nil means the cloud library's own client. Its transport's
	// dialer and proxy are kept, inside the AWS library's own transport
	// so that AWS_CA_BUNDLE still applies.
	LookupClient *http.Client
}

func (c Cloud) getenv(k string) string {
	if c.Getenv == nil {
		return os.Getenv(k)
	}
	return c.Getenv(k)
}

// CredentialError is a cloud whose credentials or settings could not be
// found; its message names what to set.
type CredentialError struct {
	Cloud string // "bedrock" or "vertex"
	Need  string // what to set
	Err   error  // the cloud library's own reason, if any
}

func (e *CredentialError) Error() string {
	s := e.Cloud + " needs " + e.Need
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

func (e *CredentialError) Unwrap() error { return e.Err }

// credentialTimeout bounds finding credentials at open: reading files,
// or an exchange with an SSO or STS endpoint.
const credentialTimeout = 20 * time.Second

// NewBedrock returns a client of Anthropic's models on Amazon Bedrock,
// without retries. The region is AWS_REGION (else AWS_DEFAULT_REGION,
// else the profile's). Credentials are, in order: AWS_BEARER_TOKEN_BEDROCK
// (a Bedrock API key), AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY (and
// AWS_SESSION_TOKEN), else the AWS SDK's chain (AWS_PROFILE and the
// shared files, SSO, a web identity, a container's or an instance's
// role); they are looked up at once, so a missing one is an error here
// rather than at the first call. The instance metadata service (an EC2
// instance's role) is asked only on EC2, or when
// AWS_EC2_METADATA_DISABLED=false says to; AWS_EC2_METADATA_DISABLED=true
// keeps it off everywhere.
func NewBedrock(c Cloud) (provider.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), credentialTimeout)
	defer cancel()
	var opts []func(*config.LoadOptions) error
	region := c.getenv("AWS_REGION")
	if region == "" {
		region = c.getenv("AWS_DEFAULT_REGION")
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if p := c.getenv("AWS_PROFILE"); p != "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	}
	if f := c.getenv("AWS_CONFIG_FILE"); f != "" {
		opts = append(opts, config.WithSharedConfigFiles([]string{f}))
	}
	if f := c.getenv("AWS_SHARED_CREDENTIALS_FILE"); f != "" {
		opts = append(opts, config.WithSharedCredentialsFiles([]string{f}))
	}
	if !c.askInstanceMetadata() {
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	} else if ep := c.getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"); ep != "" {
		opts = append(opts, config.WithEC2IMDSEndpoint(ep))
	}
	if hc := awsClient(c.LookupClient); hc != nil {
		opts = append(opts, config.WithHTTPClient(hc))
	}
	token := c.getenv("AWS_BEARER_TOKEN_BEDROCK")
	if id, secret := c.getenv("AWS_ACCESS_KEY_ID"), c.getenv("AWS_SECRET_ACCESS_KEY"); token == "" && id != "" && secret != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, c.getenv("AWS_SESSION_TOKEN"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, &CredentialError{Cloud: "bedrock", Need: "a readable AWS configuration: check AWS_PROFILE and ~/.aws/config", Err: err}
	}
	if cfg.Region == "" {
		return nil, &CredentialError{Cloud: "bedrock", Need: "a region: set AWS_REGION (such as us-east-1) or a region in your AWS profile"}
	}
	if token != "" {
		cfg.BearerAuthTokenProvider = bedrock.NewStaticBearerTokenProvider(token)
		cfg.AuthSchemePreference = []string{"httpBearerAuth"}
	} else {
		if cfg.Credentials == nil {
			return nil, bedrockCredentialError(nil)
		}
		if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			return nil, bedrockCredentialError(err)
		}
	}
	opts2 := []option.RequestOption{option.WithMaxRetries(0)}
	if c.HTTPClient != nil {
		opts2 = append(opts2, option.WithHTTPClient(c.HTTPClient))
	}
	opts2 = append(opts2, bedrock.WithConfig(cfg))
	if c.BaseURL != "" {
		opts2 = append(opts2, option.WithBaseURL(c.BaseURL)) // after WithConfig, which sets the region's
	}
	return &client{c: anthropic.NewClient(opts2...)}, nil
}

// awsClient is hc as the AWS library's client: a plain transport's dialer
// and proxy moved into the library's buildable client (which AWS_CA_BUNDLE
// needs), any other client as it is; nil for nil.
func awsClient(hc *http.Client) config.HTTPClient {
	if hc == nil {
		return nil
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		return hc
	}
	return awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.DialContext, t.Proxy = tr.DialContext, tr.Proxy
	})
}

func bedrockCredentialError(err error) error {
	return &CredentialError{Cloud: "bedrock", Err: err, Need: "AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, " +
		"or AWS_PROFILE (after `aws sso login` for an SSO profile), or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)"}
}

// vertexScope is the OAuth scope Vertex AI's calls need.
const vertexScope = "https://www.googleapis.com/auth/cloud-platform"

// NewVertex returns a client of Anthropic's models on Google Vertex AI,
// without retries. The region is CLOUD_ML_REGION ("global", "us-east5",
// ...), the project ANTHROPIC_VERTEX_PROJECT_ID (else
// GOOGLE_CLOUD_PROJECT, else the credentials' own). Credentials are
// Google's application default credentials: the key file named by
// GOOGLE_APPLICATION_CREDENTIALS, else gcloud's
// application_default_credentials.json, else, on Google's cloud only (or
// with GCE_METADATA_HOST set; never with NO_GCE_CHECK=true), the metadata
// server. The metadata server is never asked elsewhere: a laptop without
// credentials gets an error naming what to set, not a wait on an address
// that does not answer.
func NewVertex(c Cloud) (provider.Client, error) {
	region := c.getenv("CLOUD_ML_REGION")
	if region == "" {
		return nil, &CredentialError{Cloud: "vertex", Need: "a region: set CLOUD_ML_REGION (global, us-east5, europe-west1, ...)"}
	}
	// The token source keeps this context to mint tokens later: no
	// deadline, and the caller's client for the token endpoint.
	tctx := context.Background()
	if c.LookupClient != nil {
		tctx = context.WithValue(tctx, oauth2.HTTPClient, c.LookupClient)
	}
	creds, err := c.googleCredentials(tctx)
	if err != nil {
		return nil, err
	}
	project := c.getenv("ANTHROPIC_VERTEX_PROJECT_ID")
	if project == "" {
		project = c.getenv("GOOGLE_CLOUD_PROJECT")
	}
	if project == "" {
		project = creds.ProjectID
	}
	if project == "" {
		return nil, &CredentialError{Cloud: "vertex", Need: "a project: set ANTHROPIC_VERTEX_PROJECT_ID to your Google Cloud project's id"}
	}
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient)) // before WithCredentials, which wraps it
	}
	opts = append(opts, vertex.WithCredentials(tctx, region, project, creds))
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	return &client{c: anthropic.NewClient(opts...)}, nil
}

// googleCredentials finds the application default credentials without
// the metadata server unless this is Google's cloud.
func (c Cloud) googleCredentials(ctx context.Context) (*google.Credentials, error) {
	params := google.CredentialsParams{Scopes: []string{vertexScope}}
	file := c.getenv("GOOGLE_APPLICATION_CREDENTIALS")
	if file == "" {
		dir := c.getenv("CLOUDSDK_CONFIG")
		if dir == "" {
			if home := c.getenv("HOME"); home != "" {
				dir = filepath.Join(home, ".config", "gcloud")
			} else if appdata := c.getenv("APPDATA"); appdata != "" {
				dir = filepath.Join(appdata, "gcloud")
			}
		}
		if dir != "" {
			if f := filepath.Join(dir, "application_default_credentials.json"); fileExists(f) {
				file = f
			}
		}
	}
	if file != "" {
		b, err := readBounded(file)
		if err != nil {
			return nil, &CredentialError{Cloud: "vertex", Need: "a readable credentials file (GOOGLE_APPLICATION_CREDENTIALS or gcloud's)", Err: err}
		}
		creds, err := google.CredentialsFromJSONWithParams(ctx, b, params)
		if err != nil {
			return nil, &CredentialError{Cloud: "vertex", Need: "valid Google credentials in " + file, Err: err}
		}
		return creds, nil
	}
	askMetadata := c.getenv("GCE_METADATA_HOST") != "" || onGoogleCloud()
	if strings.EqualFold(c.getenv("NO_GCE_CHECK"), "true") {
		askMetadata = false // Google's libraries' switch for "not on Google's cloud"
	}
	if askMetadata {
		creds, err := google.FindDefaultCredentialsWithParams(ctx, params)
		if err == nil {
			return creds, nil
		}
		return nil, vertexCredentialError(err)
	}
	return nil, vertexCredentialError(nil)
}

func vertexCredentialError(err error) error {
	return &CredentialError{Cloud: "vertex", Err: err, Need: "Google credentials: run `gcloud auth application-default login`, " +
		"or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file"}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// maxCredentialFile bounds a credentials file: a key is a few kilobytes.
const maxCredentialFile = 1 << 20

func readBounded(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCredentialFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxCredentialFile {
		return nil, errors.New(p + " is over 1 MiB; a credentials file is a few kilobytes")
	}
	return b, nil
}

// askInstanceMetadata reports whether the AWS chain may ask the instance
// metadata service: the AWS tools ask it everywhere, which on a laptop
// costs a wait on an address that does not answer (and a packet to an
// address nobody chose); indusr asks it on EC2 only, unless told.
func (c Cloud) askInstanceMetadata() bool {
	switch strings.ToLower(c.getenv("AWS_EC2_METADATA_DISABLED")) {
	case "true":
		return false
	case "false":
		return true
	}
	return onEC2()
}

// onEC2 reports whether this machine is an EC2 instance, by the system's
// vendor and product names (Nitro and Xen instances both say so).
func onEC2() bool {
	for _, f := range []string{"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name", "/sys/class/dmi/id/bios_version"} {
		if b, err := os.ReadFile(f); err == nil {
			s := strings.ToLower(string(b))
			if strings.Contains(s, "amazon") || strings.Contains(s, "ec2") {
				return true
			}
		}
	}
	return false
}

// onGoogleCloud reports whether this machine is one of Google's (Compute
// Engine, GKE, Cloud Run), by the system's product name, as Google's own
// libraries check before they ask the metadata server.
func onGoogleCloud() bool {
	b, err := os.ReadFile("/sys/class/dmi/id/product_name")
	if err != nil {
		return false
	}
	name := strings.TrimSpace(string(b))
	return name == "Google" || name == "Google Compute Engine"
}
