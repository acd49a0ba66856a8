package telegram

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/notification"
)

const (
	token = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ012345"
	owner = int64(4242)
)

type answerer struct {
	mu    sync.Mutex
	calls []string
}

func (a *answerer) Answer(_ context.Context, nonce string, option int, surface string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, nonce+"/"+string(rune('0'+option))+"/"+surface)
	return "applied", nil
}

func setup(t *testing.T, ans channel.Answerer, st channel.State) (*channeltest.Telegram, *Channel) {
	t.Helper()
	f := channeltest.NewTelegram(t, token, owner)
	u, _ := url.Parse("telegram://" + token + "@telegram?chats=4242")
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if st == nil {
		st = &channeltest.MemState{}
	}
	return f, New(cfg, Options{APIBase: f.URL, State: st, Answerer: ans, PollTimeout: time.Second})
}

func question(nonce string) notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Edit my_file.go *wip?\nclaude on box",
		Tag: "block:box/%3", Renotify: true, Host: "box", Pane: "%3", Fingerprint: "fp", Nonce: nonce,
		Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}, {Label: "No", OptionIndex: 1}},
		TTL:     10 * time.Minute, Created: time.Now()}
}

func send(c *Channel, n notification.Notification) channel.Result {
	return c.Send(context.Background(), channel.Adapt(n, c.Capabilities(), "https://attn.example.org"))
}

func TestPlainTextWithButtons(t *testing.T) {
	f, c := setup(t, nil, nil)
	res := send(c, question("N0nce_abc-123"))
	if res.Status != channel.StatusDelivered || res.Ref != "4242:1" {
		t.Fatalf("result = %+v", res)
	}
	req := f.Requests()[0]
	if req.Path != "/bot"+token+"/sendMessage" || req.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	want := `{"chat_id":4242,"text":"api\n\nEdit my_file.go *wip?\nclaude on box","link_preview_options":{"is_disabled":true},` +
		`"reply_markup":{"inline_keyboard":[[{"text":"Yes","callback_data":"a|N0nce_abc-123|0"},{"text":"No","callback_data":"a|N0nce_abc-123|1"}],` +
		`[{"text":"Open","url":"https://attn.example.org/panes/box/%253"}]]}}`
	if string(req.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", req.Body, want)
	}
	m, _ := f.Message(owner, 1)
	if m.ParseMode != "" || m.Text != "api\n\nEdit my_file.go *wip?\nclaude on box" {
		t.Fatalf("message at telegram: %+v", m)
	}
}

func TestMarkdownWouldHaveFailed(t *testing.T) {
	// The fake refuses unbalanced Markdown as Telegram does: sending the
	// same text with parse_mode shows why attn sends plain text.
	f, c := setup(t, nil, nil)
	res := c.call(context.Background(), "sendMessage", map[string]any{"chat_id": owner, "text": "my_file.go *wip", "parse_mode": "Markdown"}, nil)
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "can't parse entities") {
		t.Fatalf("result = %+v", res)
	}
	_ = f
}

func TestCallbackDataBound(t *testing.T) {
	f, c := setup(t, nil, nil)
	fits := strings.Repeat("n", MaxCallbackData-len("a||0")) // exactly 64 bytes of callback_data
	if res := send(c, question(fits)); res.Status != channel.StatusDelivered || res.Detail != "" {
		t.Fatalf("64-byte data: %+v", res)
	}
	if m, _ := f.Message(owner, 1); len(m.ReplyMarkup.InlineKeyboard) != 2 || len(m.ReplyMarkup.InlineKeyboard[0][0].CallbackData) != 64 {
		t.Fatalf("markup %+v", m.ReplyMarkup)
	}
	res := send(c, question(fits+"x"))
	if res.Status != channel.StatusDelivered || !strings.Contains(res.Detail, "answer buttons dropped") {
		t.Fatalf("65-byte data: %+v", res)
	}
	m, _ := f.Message(owner, 2)
	if len(m.ReplyMarkup.InlineKeyboard) != 1 || m.ReplyMarkup.InlineKeyboard[0][0].Text != "Open" {
		t.Fatalf("markup %+v", m.ReplyMarkup)
	}
}

func TestTooManyRequestsRetryAfter(t *testing.T) {
	f, c := setup(t, nil, nil)
	f.Script(channeltest.TelegramTooMany(7))
	res := send(c, question("n"))
	if res.Status != channel.StatusRetry || res.RetryAfter != 7*time.Second || !strings.Contains(res.Detail, "Too Many Requests") {
		t.Fatalf("result = %+v", res)
	}
	f.Script(channeltest.TelegramTooMany(3))
	if wait, err := c.PollOnce(context.Background()); err == nil || wait != 3*time.Second {
		t.Fatalf("poll: wait %v err %v", wait, err)
	}
}

func TestErrorsSayWhatToDoWithoutTheToken(t *testing.T) {
	f, c := setup(t, nil, nil)
	c.cfg.Chat = "999"
	res := send(c, question("n"))
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "chat not found") || !strings.Contains(res.Detail, "press Start") {
		t.Fatalf("result = %+v", res)
	}
	c.cfg.Token = "123456:WRONGwrongWRONGwrongWRONG"
	res = send(c, question("n"))
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "@BotFather") {
		t.Fatalf("result = %+v", res)
	}
	f.Close()
	res = send(c, question("n"))
	for _, r := range []channel.Result{res} {
		if strings.Contains(r.Detail, "WRONGwrong") || strings.Contains(r.Detail, token) {
			t.Fatalf("token in detail: %s", r.Detail)
		}
	}
	if res.Status != channel.StatusRetry || !strings.Contains(res.Detail, "/bot***/sendMessage") {
		t.Fatalf("result = %+v", res)
	}
}

func TestAnswerFromOwner(t *testing.T) {
	ans := &answerer{}
	f, c := setup(t, ans, nil)
	send(c, question("N0nce"))
	qid := f.PressButton(owner, owner, 1, "a|N0nce|1")
	if _, err := c.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(ans.calls) != 1 || ans.calls[0] != "N0nce/1/telegram" {
		t.Fatalf("answerer calls %v", ans.calls)
	}
	if a, ok := f.Answered(qid); !ok || a.Text != "applied" {
		t.Fatalf("callback answer %+v %v", a, ok)
	}
	m, _ := f.Message(owner, 1)
	if !strings.HasSuffix(m.Text, "\n\n→ No: applied") || m.ReplyMarkup != nil {
		t.Fatalf("edited message %q markup %+v", m.Text, m.ReplyMarkup)
	}
}

func TestAnswersOffWithoutAnswerer(t *testing.T) {
	f, c := setup(t, nil, nil)
	send(c, question("N0nce"))
	qid := f.PressButton(owner, owner, 1, "a|N0nce|0")
	c.PollOnce(context.Background())
	if a, _ := f.Answered(qid); a.Text != "answers are not enabled" {
		t.Fatalf("callback answer %+v", a)
	}
}

func TestCallbackFromAnotherUserRefused(t *testing.T) {
	ans := &answerer{}
	f, c := setup(t, ans, nil)
	send(c, question("N0nce"))
	qid := f.PressButton(777, owner, 1, "a|N0nce|0")
	c.PollOnce(context.Background())
	if len(ans.calls) != 0 {
		t.Fatalf("a stranger's press reached the answerer: %v", ans.calls)
	}
	a, ok := f.Answered(qid)
	if !ok || !a.ShowAlert || !strings.Contains(a.Text, "only from its owner") {
		t.Fatalf("callback answer %+v %v", a, ok)
	}
	if m, _ := f.Message(owner, 1); m.Edits != 0 {
		t.Fatal("message edited for a stranger")
	}
}

func TestOffsetSurvivesRestart(t *testing.T) {
	ans := &answerer{}
	st := &channeltest.MemState{}
	f, c := setup(t, ans, st)
	send(c, question("first"))
	send(c, question("second"))
	f.PressButton(owner, owner, 1, "a|first|0")
	if _, err := c.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Restart: a new channel over the same store, then a second press.
	u, _ := url.Parse("telegram://" + token + "@telegram?chats=4242")
	cfg, _ := Parse(u)
	restarted := New(cfg, Options{APIBase: f.URL, State: st, Answerer: ans, PollTimeout: time.Second})
	f.PressButton(owner, owner, 2, "a|second|1")
	if _, err := restarted.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ans.calls, " ") != "first/0/telegram second/1/telegram" {
		t.Fatalf("answers %v: an update was replayed or lost", ans.calls)
	}
	var body struct {
		Offset int `json:"offset"`
	}
	reqs := f.Requests()
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/getUpdates") {
			json.Unmarshal(r.Body, &body)
		}
	}
	if body.Offset != 102 || f.Pending() != 1 {
		t.Fatalf("last offset %d, pending %d", body.Offset, f.Pending())
	}
	if v, _ := st.Get(context.Background(), stateOffset); v != "103" {
		t.Fatalf("stored offset %q", v)
	}
}

func TestClearMarksMessage(t *testing.T) {
	f, c := setup(t, nil, nil)
	res := send(c, question("N0nce"))
	if r := c.Clear(context.Background(), res.Ref); r.Status != channel.StatusDelivered {
		t.Fatalf("clear: %+v", r)
	}
	m, _ := f.Message(owner, 1)
	if m.ReplyMarkup == nil || m.ReplyMarkup.InlineKeyboard[0][0].Text != "✓ No longer waiting" {
		t.Fatalf("markup after clear %+v", m.ReplyMarkup)
	}
	if r := c.Clear(context.Background(), res.Ref); r.Status != channel.StatusDelivered {
		t.Fatalf("second clear: %+v", r)
	}
	qid := f.PressButton(owner, owner, 1, "x")
	c.PollOnce(context.Background())
	if a, _ := f.Answered(qid); !strings.Contains(a.Text, "no longer waiting") {
		t.Fatalf("press on a cleared message answered %+v", a)
	}
}

func TestSilentReplacement(t *testing.T) {
	f, c := setup(t, nil, nil)
	n := question("n")
	n.Renotify = false
	send(c, n)
	if m, _ := f.Message(owner, 1); !m.DisableNotification {
		t.Fatal("a silent replacement buzzed")
	}
}

func TestParse(t *testing.T) {
	u, _ := url.Parse("telegram://" + token + "@telegram?chats=-100200300&user=55")
	cfg, err := Parse(u)
	if err != nil || cfg.Token != token || cfg.Chat != "-100200300" || cfg.User != 55 {
		t.Fatalf("%+v %v", cfg, err)
	}
	u, _ = url.Parse("telegram://" + token + "@telegram?chats=@mychannel")
	if cfg, err := Parse(u); err != nil || cfg.User != 0 {
		t.Fatalf("%+v %v", cfg, err)
	} else if New(cfg, Options{}).Capabilities().Actions != 0 {
		t.Fatal("buttons offered with nobody allowed to answer")
	}
	for raw, want := range map[string]string{
		"telegram://telegram?chats=1":                       "token is missing",
		"telegram://abc@telegram?chats=1":                   "not a bot token",
		"telegram://" + token + "@api.telegram.org?chats=1": "host as \"telegram\"",
		"telegram://" + token + "@telegram":                 "chats= is missing",
		"telegram://" + token + "@telegram?chats=1,2":       "one chat per channel",
		"telegram://" + token + "@telegram?chats=1&user=x":  "numeric id",
		"telegram://" + token + "@telegram?chats=bob":       "numeric chat id",
		"telegram://" + token + "@telegram?chats=1&foo=1":   "unknown parameter",
	} {
		u, _ := url.Parse(raw)
		_, err := Parse(u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("token in error %v", err)
		}
	}
	u, _ = url.Parse("telegram://" + token + "@telegram?chats=4242")
	if got := Redact(u); got != "telegram://***@telegram?chats=4242" {
		t.Fatalf("redacted %s", got)
	}
}
