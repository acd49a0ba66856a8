package channeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Pushover fakes the Pushover Message API (https://pushover.net/api):
// POST /1/messages.json with form fields token, user, message (≤ 1024
// characters), title (≤ 250), url (≤ 512), url_title (≤ 100), priority
// −2…2, sound, ttl, device; priority 2 (emergency) needs retry ≥ 30 and
// expire ≤ 10800 and answers a receipt, which
// POST /1/receipts/<receipt>/cancel.json cancels. Answers are
// {"status":1,"request"} or HTTP 4xx with
// {"status":0,"errors":[…],"request", "<field>":"invalid"}.
type Pushover struct {
	*httptest.Server
	recorder

	// Token and User are the application token and user key accepted.
	Token, User string

	mu        sync.Mutex
	messages  []url.Values
	cancelled []string
	n         int
}

var pushoverKey = regexp.MustCompile(`^[A-Za-z0-9]{30}$`)

// NewPushover starts a fake Pushover API; it is closed when the test
// ends.
func NewPushover(t interface{ Cleanup(func()) }, token, user string) *Pushover {
	f := &Pushover{Token: token, User: user}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Messages returns the form of every accepted message.
func (f *Pushover) Messages() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.messages...)
}

// Cancelled returns the receipts cancelled so far.
func (f *Pushover) Cancelled() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cancelled...)
}

func (f *Pushover) refuse(w http.ResponseWriter, status int, field string, errs ...string) {
	body := map[string]any{"status": 0, "errors": errs, "request": "req-refused"}
	if field != "" {
		body[field] = "invalid"
	}
	b, _ := json.Marshal(body)
	writeJSON(w, status, string(b))
}

func (f *Pushover) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		f.refuse(w, http.StatusNotFound, "", "not found")
		return
	}
	form, err := url.ParseQuery(string(rec.Body))
	if err != nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		f.refuse(w, http.StatusBadRequest, "", "request body is not form-encoded")
		return
	}
	if form.Get("token") != f.Token || !pushoverKey.MatchString(form.Get("token")) {
		f.refuse(w, http.StatusBadRequest, "token", "application token is invalid, see https://pushover.net/api")
		return
	}
	switch {
	case r.URL.Path == "/1/messages.json":
		f.message(w, form)
	case strings.HasPrefix(r.URL.Path, "/1/receipts/") && strings.HasSuffix(r.URL.Path, "/cancel.json"):
		receipt := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/1/receipts/"), "/cancel.json")
		f.mu.Lock()
		known := false
		for _, m := range f.messages {
			if m.Get("receipt") == receipt {
				known = true
			}
		}
		if known {
			f.cancelled = append(f.cancelled, receipt)
		}
		f.mu.Unlock()
		if !known {
			f.refuse(w, http.StatusNotFound, "receipt", "receipt not found; may be invalid or expired")
			return
		}
		writeJSON(w, http.StatusOK, `{"status":1,"request":"req-cancel"}`)
	default:
		f.refuse(w, http.StatusNotFound, "", "not found")
	}
}

func (f *Pushover) message(w http.ResponseWriter, form url.Values) {
	if form.Get("user") != f.User {
		f.refuse(w, http.StatusBadRequest, "user", "user identifier is not a valid user, group, or subscribed user key, see https://pushover.net/api#identifiers")
		return
	}
	msg := form.Get("message")
	for _, lim := range []struct {
		field string
		max   int
	}{{"message", 1024}, {"title", 250}, {"url", 512}, {"url_title", 100}} {
		if n := utf8.RuneCountInString(form.Get(lim.field)); n > lim.max {
			f.refuse(w, http.StatusBadRequest, lim.field, fmt.Sprintf("%s cannot be longer than %d characters", lim.field, lim.max))
			return
		}
	}
	if strings.TrimSpace(msg) == "" {
		f.refuse(w, http.StatusBadRequest, "message", "message cannot be blank")
		return
	}
	prio := 0
	if p := form.Get("priority"); p != "" {
		var err error
		if prio, err = strconv.Atoi(p); err != nil || prio < -2 || prio > 2 {
			f.refuse(w, http.StatusBadRequest, "priority", "priority is invalid")
			return
		}
	}
	var receipt string
	if prio == 2 {
		retry, err1 := strconv.Atoi(form.Get("retry"))
		expire, err2 := strconv.Atoi(form.Get("expire"))
		switch {
		case err1 != nil:
			f.refuse(w, http.StatusBadRequest, "retry", "retry parameter is required for emergency-priority notifications")
			return
		case retry < 30:
			f.refuse(w, http.StatusBadRequest, "retry", "retry must be at least 30 seconds")
			return
		case err2 != nil:
			f.refuse(w, http.StatusBadRequest, "expire", "expire parameter is required for emergency-priority notifications")
			return
		case expire > 10800 || expire < 1:
			f.refuse(w, http.StatusBadRequest, "expire", "expire must be at most 10800 seconds")
			return
		}
	}
	f.mu.Lock()
	f.n++
	if prio == 2 {
		receipt = fmt.Sprintf("r%029d", f.n)
		form.Set("receipt", receipt)
	}
	f.messages = append(f.messages, form)
	f.mu.Unlock()
	if receipt != "" {
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"status":1,"request":"req-%d","receipt":%q}`, f.n, receipt))
		return
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"status":1,"request":"req-%d"}`, f.n))
}
