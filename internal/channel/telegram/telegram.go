// Package telegram is attn's two-way Telegram channel over the Bot API
// (https://core.telegram.org/bots/api). Messages go out as plain text (no
// parse_mode: a file name like my_file.go or a "*wip" never breaks a
// Markdown parse); a question's answers are inline keyboard buttons whose
// callback_data carries the nonce and the option ("a|<nonce>|<index>",
// at most 64 bytes, else no buttons); replies come back by getUpdates
// long polling with the offset persisted before each update is handled
// (at most once: nothing is replayed after a restart); every callback is
// answered with answerCallbackQuery and its message edited to show the
// outcome; callbacks from anyone but the configured user are refused; a
// 429's parameters.retry_after is honored. When the wait clears, the
// message's keyboard is replaced by a "no longer waiting" mark.
//
// Channel URL: telegram://TOKEN@telegram?chats=CHAT_ID[&user=USER_ID]
// (shoutrrr's form). In a private chat the user is the chat; for a group,
// user= names who may answer (without it, no buttons are shown).
package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/channel"
)

// Usage is the URL form, for errors.
const Usage = "telegram://BOT_TOKEN@telegram?chats=CHAT_ID[&user=USER_ID] (the token from @BotFather, e.g. 123456:ABC-DEF…)"

// Config is a parsed telegram:// URL.
type Config struct {
	Token string // "123456:ABC-…"
	// Chat is the chat id (a number) or a channel's @username.
	Chat string
	// User is the only user id whose button presses are taken; 0: none.
	User int64
}

var validToken = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]{20,}$`)

// Parse reads a telegram:// URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "telegram" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	if u.User == nil {
		return Config{}, fmt.Errorf("the bot token is missing: write %s", Usage)
	}
	tok := u.User.Username()
	if p, ok := u.User.Password(); ok {
		tok += ":" + p
	}
	if !validToken.MatchString(tok) {
		return Config{}, fmt.Errorf("that is not a bot token (digits, ':', then at least 20 letters, digits, '-' or '_'): write %s", Usage)
	}
	if u.Host != "telegram" {
		return Config{}, fmt.Errorf("write the host as \"telegram\": %s", Usage)
	}
	c := Config{Token: tok}
	for k, v := range u.Query() {
		switch k {
		case "chats":
			chats := strings.Split(v[0], ",")
			if len(chats) != 1 || len(v) != 1 {
				return Config{}, fmt.Errorf("chats=%s: one chat per channel; add a second channel for another chat", strings.Join(v, ","))
			}
			c.Chat = strings.TrimSpace(chats[0])
		case "user":
			id, err := strconv.ParseInt(v[0], 10, 64)
			if err != nil || id <= 0 {
				return Config{}, fmt.Errorf("user=%q: want the numeric id of the person who may answer (e.g. from @userinfobot)", v[0])
			}
			c.User = id
		default:
			return Config{}, fmt.Errorf("unknown parameter %q: a telegram URL takes chats= and user=", k)
		}
	}
	if c.Chat == "" {
		return Config{}, fmt.Errorf("chats= is missing: write %s", Usage)
	}
	id, err := strconv.ParseInt(c.Chat, 10, 64)
	switch {
	case err == nil && id > 0 && c.User == 0:
		c.User = id // a private chat: its user answers
	case err != nil && !strings.HasPrefix(c.Chat, "@"):
		return Config{}, fmt.Errorf("chats=%q: want a numeric chat id or a channel's @username", c.Chat)
	}
	return c, nil
}

// Redact shows a telegram URL without its bot token.
func Redact(u *url.URL) string {
	return "telegram://***@telegram?" + u.RawQuery
}

// Options are a Channel's collaborators.
type Options struct {
	// APIBase is the Bot API's URL (default https://api.telegram.org).
	APIBase string
	// Client sends the requests; nil means channel.NewHTTPClient(90 s)
	// (long polls last PollTimeout).
	Client *http.Client
	// State persists the getUpdates offset (required for Run).
	State channel.State
	// Answerer takes button presses; nil answers "answers are not enabled".
	Answerer channel.Answerer
	// PollTimeout is getUpdates' long-poll timeout (default 50 s).
	PollTimeout time.Duration
	Log         *slog.Logger
	Now         func() time.Time
}

// Channel sends to one Telegram chat and takes its button presses.
type Channel struct {
	cfg Config
	opt Options
	mu  sync.Mutex // serializes polling (one getUpdates at a time)
}

// New returns a Telegram channel.
func New(cfg Config, opt Options) *Channel {
	if opt.APIBase == "" {
		opt.APIBase = "https://api.telegram.org"
	}
	opt.APIBase = strings.TrimRight(opt.APIBase, "/")
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(90 * time.Second)
	}
	if opt.PollTimeout <= 0 {
		opt.PollTimeout = 50 * time.Second
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Channel{cfg: cfg, opt: opt}
}

// Kind returns "telegram".
func (c *Channel) Kind() string { return "telegram" }

// Capabilities: title (first line) and body as plain text within 4096
// UTF-16 units, a link button to the card, answer buttons when a user
// may answer, clear (the keyboard is edited). No priority beyond a silent
// send; no end-to-end encryption (bot chats are not secret chats).
func (c *Channel) Capabilities() channel.Capabilities {
	caps := channel.Capabilities{Title: true, Body: true, Click: true, Clear: true,
		MaxTitle: 256, MaxBody: 3800, MaxLabel: 40, Unit: channel.UTF16}
	if c.cfg.User != 0 {
		caps.Actions = 4
	}
	return caps
}

// Text is the message text for m: the title, a blank line, the body.
func Text(m channel.Message) string {
	if m.Body == "" {
		return m.Title
	}
	return m.Title + "\n\n" + m.Body
}

// CallbackData is a button's callback_data: "a|<nonce>|<index>".
func CallbackData(nonce string, option int) string {
	return "a|" + nonce + "|" + strconv.Itoa(option)
}

// MaxCallbackData is the Bot API's bound on callback_data, in bytes.
const MaxCallbackData = 64

// Button is an inline keyboard button.
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// Markup is an inline keyboard (reply_markup).
type Markup struct {
	InlineKeyboard [][]Button `json:"inline_keyboard"`
}

// SendMessage is the body of sendMessage.
type SendMessage struct {
	ChatID              any             `json:"chat_id"` // int64 or "@channel"
	Text                string          `json:"text"`
	DisableNotification bool            `json:"disable_notification,omitempty"`
	LinkPreviewOptions  map[string]bool `json:"link_preview_options"`
	ReplyMarkup         *Markup         `json:"reply_markup,omitempty"`
}

// Body returns the sendMessage body for m, and a note when its buttons
// had to be dropped.
func (c *Channel) Body(m channel.Message) (SendMessage, string) {
	s := SendMessage{ChatID: c.chatID(), Text: Text(m), DisableNotification: m.Silent,
		LinkPreviewOptions: map[string]bool{"is_disabled": true}}
	var note string
	var kb [][]Button
	var row []Button
	for _, a := range m.Actions {
		data := CallbackData(m.Nonce, a.OptionIndex)
		if len(data) > MaxCallbackData {
			note = fmt.Sprintf("answer buttons dropped: the nonce makes callback_data %d bytes, over Telegram's %d", len(data), MaxCallbackData)
			row = nil
			break
		}
		row = append(row, Button{Text: a.Label, CallbackData: data})
	}
	if len(row) > 0 {
		kb = append(kb, row)
	}
	if m.Click != "" {
		kb = append(kb, []Button{{Text: "Open", URL: m.Click}})
	}
	if len(kb) > 0 {
		s.ReplyMarkup = &Markup{InlineKeyboard: kb}
	}
	return s, note
}

func (c *Channel) chatID() any {
	if id, err := strconv.ParseInt(c.cfg.Chat, 10, 64); err == nil {
		return id
	}
	return c.cfg.Chat
}

// Send posts m to the chat. Its Ref is "<chat id>:<message id>".
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	body, note := c.Body(m)
	var msg struct {
		MessageID int `json:"message_id"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
	}
	if res := c.call(ctx, "sendMessage", body, &msg); res.Status != channel.StatusDelivered {
		return res
	}
	res := channel.Delivered(fmt.Sprintf("%d:%d", msg.Chat.ID, msg.MessageID))
	res.Detail = note
	return res
}

// ClearedMark replaces a cleared message's keyboard.
var ClearedMark = Markup{InlineKeyboard: [][]Button{{{Text: "✓ No longer waiting", CallbackData: "x"}}}}

// Clear replaces the keyboard of message ref ("<chat>:<message>") by a
// "no longer waiting" mark: the wait cleared, its buttons are void.
func (c *Channel) Clear(ctx context.Context, ref string) channel.Result {
	chat, msg, ok := strings.Cut(ref, ":")
	chatID, err1 := strconv.ParseInt(chat, 10, 64)
	msgID, err2 := strconv.Atoi(msg)
	if !ok || err1 != nil || err2 != nil {
		return channel.Failed(fmt.Sprintf("unreadable message reference %q", ref))
	}
	res := c.call(ctx, "editMessageReplyMarkup", map[string]any{"chat_id": chatID, "message_id": msgID, "reply_markup": ClearedMark}, nil)
	if res.Status == channel.StatusFailed && strings.Contains(res.Detail, "message is not modified") {
		return channel.Delivered(ref)
	}
	return res
}

// apiAnswer is every Bot API answer.
type apiAnswer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter      int   `json:"retry_after"`
		MigrateToChatID int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

// call posts one Bot API method and decodes its result into out.
func (c *Channel) call(ctx context.Context, method string, in, out any) channel.Result {
	b, err := json.Marshal(in)
	if err != nil {
		return channel.Failed(fmt.Sprintf("encode %s: %v", method, err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opt.APIBase+"/bot"+c.cfg.Token+"/"+method, bytes.NewReader(b))
	if err != nil {
		return channel.Failed(channel.Scrub(fmt.Sprintf("telegram request: %v", err), c.cfg.Token))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := channel.Do(c.opt.Client, req, c.opt.APIBase+"/bot***/"+method)
	if err != nil {
		return channel.NetworkResult(fmt.Errorf("%s", channel.Scrub(err.Error(), c.cfg.Token)))
	}
	var ans apiAnswer
	if json.Unmarshal(resp.Body, &ans) != nil {
		return channel.StatusResult(resp, c.opt.Now(), "telegram answered something that is not Bot API JSON: "+channel.Excerpt(resp.Body))
	}
	if ans.OK && resp.Status/100 == 2 {
		if out != nil {
			if err := json.Unmarshal(ans.Result, out); err != nil {
				return channel.Failed(fmt.Sprintf("decode %s result: %v", method, err))
			}
		}
		return channel.Delivered("")
	}
	code := ans.ErrorCode
	if code == 0 {
		code = resp.Status
	}
	detail := channel.Scrub(fmt.Sprintf("telegram %s: %d %s", method, code, ans.Description), c.cfg.Token)
	switch {
	case code == http.StatusTooManyRequests:
		return channel.Retry(detail, time.Duration(ans.Parameters.RetryAfter)*time.Second)
	case code >= 500:
		return channel.Retry(detail, 0)
	case code == http.StatusUnauthorized:
		return channel.Failed(detail + ": the bot token is wrong or revoked; copy it again from @BotFather")
	case ans.Parameters.MigrateToChatID != 0:
		return channel.Failed(fmt.Sprintf("%s: the group is now a supergroup; use chats=%d", detail, ans.Parameters.MigrateToChatID))
	case strings.Contains(ans.Description, "chat not found"):
		return channel.Failed(detail + ": check chats= in the channel URL, and open the bot in Telegram and press Start")
	case strings.Contains(ans.Description, "bot was blocked"):
		return channel.Failed(detail + ": unblock the bot in Telegram")
	}
	return channel.Failed(detail)
}

// Update is one getUpdates entry: only callback queries are asked for.
type Update struct {
	UpdateID      int            `json:"update_id"`
	CallbackQuery *CallbackQuery `json:"callback_query"`
}

// CallbackQuery is a press of an inline keyboard button.
type CallbackQuery struct {
	ID   string `json:"id"`
	From struct {
		ID int64 `json:"id"`
	} `json:"from"`
	Message *struct {
		MessageID int `json:"message_id"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		Text        string  `json:"text"`
		ReplyMarkup *Markup `json:"reply_markup"`
	} `json:"message"`
	Data string `json:"data"`
}

const stateOffset = "offset"

// Run long-polls getUpdates until ctx ends, handling button presses;
// errors are logged and polling resumes after a pause (or the wait a 429
// asked for).
func (c *Channel) Run(ctx context.Context) error {
	if c.opt.State == nil {
		return fmt.Errorf("telegram replies need a state store for the update offset")
	}
	if c.cfg.User == 0 {
		return nil // nobody may answer: no buttons, nothing to poll for
	}
	failures := 0
	for ctx.Err() == nil {
		wait, err := c.PollOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			failures++
			if wait == 0 {
				wait = min(time.Duration(failures)*5*time.Second, time.Minute)
			}
			c.opt.Log.Warn("telegram getUpdates failed; retrying", "err", err, "wait", wait)
		case err == nil:
			failures = 0
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
		}
	}
	return nil
}

// PollOnce makes one getUpdates call from the persisted offset and
// handles what it returns, persisting the next offset before handling
// each update (so a crash or restart never replays one). wait is how
// long to pause before the next poll (a 429's retry_after).
func (c *Channel) PollOnce(ctx context.Context) (wait time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw, err := c.opt.State.Get(ctx, stateOffset)
	if err != nil {
		return 0, fmt.Errorf("read the telegram offset: %w", err)
	}
	offset, _ := strconv.Atoi(raw)
	pctx, cancel := context.WithTimeout(ctx, c.opt.PollTimeout+15*time.Second)
	defer cancel()
	var updates []Update
	res := c.call(pctx, "getUpdates", map[string]any{"offset": offset, "timeout": int(c.opt.PollTimeout / time.Second),
		"allowed_updates": []string{"callback_query"}}, &updates)
	if res.Status != channel.StatusDelivered {
		return res.RetryAfter, fmt.Errorf("%s", res.Detail)
	}
	for _, u := range updates {
		if err := c.opt.State.Set(ctx, stateOffset, strconv.Itoa(u.UpdateID+1)); err != nil {
			return 0, fmt.Errorf("store the telegram offset (not handling update %d, so it is never handled twice): %w", u.UpdateID, err)
		}
		if u.CallbackQuery != nil {
			c.handle(ctx, u.CallbackQuery)
		}
	}
	return 0, nil
}

// handle answers one button press: refused unless from the configured
// user; otherwise the answer goes to the Answerer, the callback is
// answered with the outcome and the message edited to show it.
func (c *Channel) handle(ctx context.Context, q *CallbackQuery) {
	log := c.opt.Log.With("callback", q.ID, "from", q.From.ID)
	if c.cfg.User == 0 || q.From.ID != c.cfg.User {
		log.Warn("telegram button press from someone other than the configured user refused")
		c.answerCallback(ctx, q.ID, "This bot takes answers only from its owner.", true)
		return
	}
	kind, rest, _ := strings.Cut(q.Data, "|")
	nonce, idx, ok := strings.Cut(rest, "|")
	option, err := strconv.Atoi(idx)
	if kind != "a" || !ok || err != nil || nonce == "" {
		c.answerCallback(ctx, q.ID, "This question is no longer waiting.", false)
		return
	}
	outcome, err := channel.Answer(ctx, c.opt.Answerer, nonce, option, "telegram")
	if err != nil {
		outcome = err.Error()
	}
	log.Info("telegram answer", "option", option, "outcome", outcome)
	c.answerCallback(ctx, q.ID, channel.Clip(outcome, 200, channel.UTF16), false)
	if q.Message == nil {
		return
	}
	label := fmt.Sprintf("option %d", option+1)
	if q.Message.ReplyMarkup != nil {
		for _, row := range q.Message.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				if b.CallbackData == q.Data {
					label = b.Text
				}
			}
		}
	}
	text := channel.Clip(q.Message.Text, 3900, channel.UTF16) + "\n\n→ " + label + ": " + channel.Clip(outcome, 150, channel.UTF16)
	if res := c.call(ctx, "editMessageText", map[string]any{"chat_id": q.Message.Chat.ID, "message_id": q.Message.MessageID,
		"text": text, "link_preview_options": map[string]bool{"is_disabled": true}}, nil); res.Status != channel.StatusDelivered {
		log.Warn("cannot edit the telegram message to show the answer", "detail", res.Detail)
	}
}

func (c *Channel) answerCallback(ctx context.Context, id, text string, alert bool) {
	if res := c.call(ctx, "answerCallbackQuery", map[string]any{"callback_query_id": id, "text": text, "show_alert": alert}, nil); res.Status != channel.StatusDelivered {
		c.opt.Log.Warn("cannot answer the telegram callback", "callback", id, "detail", res.Detail)
	}
}
