package channeltest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// FCMScope is the OAuth scope FCM HTTP v1 needs.
const FCMScope = "https://www.googleapis.com/auth/firebase.messaging"

// FCM fakes both halves of FCM HTTP v1 (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send):
//
//   - Google's OAuth 2.0 token endpoint for service accounts, POST /token
//     with grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer and an
//     RS256 JWT assertion, verified against the key of the service
//     account ServiceAccountJSON returns (iss, scope, aud, exp checked),
//     answering {"access_token","expires_in","token_type":"Bearer"} or
//     {"error","error_description"};
//   - POST /v1/projects/<project>/messages:send with that bearer token and
//     {"message":{…}}: data values must be strings, android.priority one
//     of NORMAL/HIGH, android.ttl a duration like "600s"; answers
//     {"name":"projects/<p>/messages/<id>"} or a google.rpc.Status
//     {"error":{"code","message","status","details":[{"@type":
//     "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode"}]}}
//     — UNREGISTERED (404) for a token in Unregistered.
type FCM struct {
	*httptest.Server
	recorder

	Project string
	key     *rsa.PrivateKey
	email   string

	mu           sync.Mutex
	issued       map[string]bool
	unregistered map[string]bool
	messages     []FCMMessage
	tokenCalls   int
}

// FCMMessage is an accepted message, decoded.
type FCMMessage struct {
	Token        string            `json:"token"`
	Notification map[string]string `json:"notification,omitempty"`
	Data         map[string]string `json:"data,omitempty"`
	Android      struct {
		Priority     string `json:"priority"`
		CollapseKey  string `json:"collapse_key"`
		TTL          string `json:"ttl"`
		Notification *struct {
			Tag                  string `json:"tag"`
			ChannelID            string `json:"channel_id"`
			NotificationPriority string `json:"notification_priority"`
			DefaultSound         bool   `json:"default_sound"`
		} `json:"notification,omitempty"`
	} `json:"android"`
}

// The service-account key is made once per test binary: RSA key
// generation is slow under the race detector.
var (
	fcmKeyOnce sync.Once
	fcmKey     *rsa.PrivateKey
	fcmKeyErr  error
)

// NewFCM starts a fake FCM for project; it is closed when the test ends.
func NewFCM(t interface {
	Cleanup(func())
	Fatal(...any)
}, project string) *FCM {
	fcmKeyOnce.Do(func() { fcmKey, fcmKeyErr = rsa.GenerateKey(rand.Reader, 2048) })
	if fcmKeyErr != nil {
		t.Fatal(fcmKeyErr)
	}
	key := fcmKey
	f := &FCM{Project: project, key: key, email: "attn@" + project + ".iam.gserviceaccount.com",
		issued: map[string]bool{}, unregistered: map[string]bool{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// ServiceAccountJSON returns a service-account key file whose token_uri
// is this fake.
func (f *FCM) ServiceAccountJSON() []byte {
	der, _ := x509.MarshalPKCS8PrivateKey(f.key)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": f.Project, "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": f.email, "client_id": "1", "auth_uri": f.URL + "/auth", "token_uri": f.URL + "/token",
	})
	return b
}

// Unregister makes the service answer UNREGISTERED for token, as after an
// app uninstall; Register undoes it (the app registered again).
func (f *FCM) Unregister(token string) { f.mu.Lock(); f.unregistered[token] = true; f.mu.Unlock() }

// Register makes a token valid again.
func (f *FCM) Register(token string) { f.mu.Lock(); delete(f.unregistered, token); f.mu.Unlock() }

// Messages returns the accepted messages.
func (f *FCM) Messages() []FCMMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]FCMMessage(nil), f.messages...)
}

// TokenCalls returns how many access tokens were issued.
func (f *FCM) TokenCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenCalls
}

// FCMError builds a google.rpc.Status answer with an FcmError detail
// (errorCode "" for none), for scripting.
func FCMError(code int, status, errorCode, message string) Reply {
	e := map[string]any{"code": code, "message": message, "status": status}
	if errorCode != "" {
		e["details"] = []any{map[string]string{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode}}
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return Reply{Status: code, Body: string(b)}
}

func (f *FCM) rpcError(w http.ResponseWriter, r Reply) {
	for k, v := range r.Header {
		w.Header().Set(k, v)
	}
	writeJSON(w, r.Status, r.Body)
}

func (f *FCM) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	switch {
	case r.URL.Path == "/token" && r.Method == http.MethodPost:
		f.token(w, rec)
	case r.URL.Path == "/v1/projects/"+f.Project+"/messages:send" && r.Method == http.MethodPost:
		f.send(w, r, rec)
	case strings.HasPrefix(r.URL.Path, "/v1/projects/"):
		f.rpcError(w, FCMError(404, "NOT_FOUND", "", "Requested entity was not found."))
	default:
		f.rpcError(w, FCMError(404, "NOT_FOUND", "", "Not Found"))
	}
}

func oauthError(w http.ResponseWriter, desc string) {
	b, _ := json.Marshal(map[string]string{"error": "invalid_grant", "error_description": desc})
	writeJSON(w, http.StatusBadRequest, string(b))
}

func (f *FCM) token(w http.ResponseWriter, rec Request) {
	form, _ := url.ParseQuery(string(rec.Body))
	if form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		oauthError(w, "Invalid grant_type")
		return
	}
	parts := strings.Split(form.Get("assertion"), ".")
	if len(parts) != 3 {
		oauthError(w, "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe")
		return
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || rsa.VerifyPKCS1v15(&f.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		oauthError(w, "Invalid JWT Signature.")
		return
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Exp   int64  `json:"exp"`
		Iat   int64  `json:"iat"`
	}
	json.Unmarshal(raw, &claims)
	now := time.Now().Unix()
	switch {
	case claims.Iss != f.email:
		oauthError(w, "Invalid issuer")
		return
	case !strings.Contains(" "+claims.Scope+" ", " "+FCMScope+" "):
		oauthError(w, "Invalid OAuth scope or ID token audience provided.")
		return
	case claims.Aud != f.URL+"/token":
		oauthError(w, "Invalid JWT audience")
		return
	case claims.Exp < now || claims.Exp-claims.Iat > 3600:
		oauthError(w, "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
		return
	}
	f.mu.Lock()
	f.tokenCalls++
	tok := fmt.Sprintf("ya29.fake-%d", f.tokenCalls)
	f.issued[tok] = true
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"access_token":%q,"expires_in":3599,"token_type":"Bearer"}`, tok))
}

var fcmDuration = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,9})?s$`)

func (f *FCM) send(w http.ResponseWriter, r *http.Request, rec Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	ok := f.issued[tok]
	f.mu.Unlock()
	if !ok {
		f.rpcError(w, FCMError(401, "UNAUTHENTICATED", "", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."))
		return
	}
	var body struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(rec.Body, &body) != nil || len(body.Message) == 0 {
		f.rpcError(w, FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Invalid JSON payload received."))
		return
	}
	var loose struct {
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(body.Message, &loose)
	for k, v := range loose.Data {
		if _, isString := v.(string); !isString {
			f.rpcError(w, FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", fmt.Sprintf("Invalid value at 'message.data[%s].value' (TYPE_STRING)", k)))
			return
		}
	}
	var m FCMMessage
	if err := json.Unmarshal(body.Message, &m); err != nil || m.Token == "" {
		f.rpcError(w, FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Invalid value at 'message': a token is required"))
		return
	}
	switch {
	case m.Android.Priority != "" && m.Android.Priority != "NORMAL" && m.Android.Priority != "HIGH":
		f.rpcError(w, FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", fmt.Sprintf("Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), %q", m.Android.Priority)))
		return
	case m.Android.TTL != "" && !fcmDuration.MatchString(m.Android.TTL):
		f.rpcError(w, FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)"))
		return
	}
	f.mu.Lock()
	gone := f.unregistered[m.Token]
	if !gone {
		f.messages = append(f.messages, m)
	}
	n := len(f.messages)
	f.mu.Unlock()
	if gone {
		f.rpcError(w, FCMError(404, "NOT_FOUND", "UNREGISTERED", "Requested entity was not found."))
		return
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"name":"projects/%s/messages/0:%d%%abc"}`, f.Project, n))
}
