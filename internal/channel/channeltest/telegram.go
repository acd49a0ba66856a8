package channeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// Telegram fakes the Bot API (https://core.telegram.org/bots/api):
// POST /bot<token>/<method> with a JSON body, answers
// {"ok":true,"result":…} or {"ok":false,"error_code","description",
// "parameters":{"retry_after"}}. It implements sendMessage (text ≤ 4096
// UTF-16 units; Markdown entities checked when parse_mode asks for them;
// inline keyboards with callback_data of 1–64 bytes), editMessageText,
// editMessageReplyMarkup, answerCallbackQuery and getUpdates (offset
// confirms earlier updates, timeout long-polls), and lets a test push
// callback queries as a user pressing a button.
type Telegram struct {
	*httptest.Server
	recorder

	// Token is the bot token the fake answers to.
	Token string
	// Chats are the chat ids the bot may write to (users who pressed
	// Start); others get "chat not found".
	Chats map[int64]bool

	mu       sync.Mutex
	nextMsg  int
	messages map[string]*TelegramMessage // "chat:id"
	updates  []telegramUpdate
	nextUpd  int
	answered map[string]TelegramAnswer // callback query id → answer
	arrived  chan struct{}
}

// TelegramMessage is a message the bot sent, as it stands now.
type TelegramMessage struct {
	ChatID              int64           `json:"-"`
	MessageID           int             `json:"message_id"`
	Text                string          `json:"text"`
	ParseMode           string          `json:"-"`
	DisableNotification bool            `json:"-"`
	ReplyMarkup         *TelegramMarkup `json:"reply_markup,omitempty"`
	Edits               int             `json:"-"`
}

// TelegramMarkup is an inline keyboard.
type TelegramMarkup struct {
	InlineKeyboard [][]TelegramButton `json:"inline_keyboard"`
}

// TelegramButton is an inline keyboard button.
type TelegramButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// TelegramAnswer is an answerCallbackQuery call.
type TelegramAnswer struct {
	Text      string
	ShowAlert bool
}

type telegramUpdate struct {
	UpdateID      int            `json:"update_id"`
	CallbackQuery map[string]any `json:"callback_query,omitempty"`
}

// NewTelegram starts a fake Bot API for token; it is closed when the test
// ends.
func NewTelegram(t interface{ Cleanup(func()) }, token string, chats ...int64) *Telegram {
	f := &Telegram{Token: token, Chats: map[int64]bool{}, messages: map[string]*TelegramMessage{},
		answered: map[string]TelegramAnswer{}, nextUpd: 100, arrived: make(chan struct{}, 1)}
	for _, c := range chats {
		f.Chats[c] = true
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// TelegramTooMany is the Bot API's flood-control answer.
func TelegramTooMany(retryAfter int) Reply {
	return Reply{Status: 429, Body: fmt.Sprintf(`{"ok":false,"error_code":429,"description":"Too Many Requests: retry after %d","parameters":{"retry_after":%d}}`, retryAfter, retryAfter)}
}

// Message returns a sent message by chat and id.
func (f *Telegram) Message(chat int64, id int) (TelegramMessage, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.messages[fmt.Sprintf("%d:%d", chat, id)]
	if !ok {
		return TelegramMessage{}, false
	}
	return *m, true
}

// Answered returns the answer given to a callback query, if any.
func (f *Telegram) Answered(id string) (TelegramAnswer, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.answered[id]
	return a, ok
}

// PressButton queues the update a user's press of a button produces: a
// callback_query from user about message (chat, id) with data. It returns
// the callback query id.
func (f *Telegram) PressButton(user, chat int64, messageID int, data string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextUpd++
	qid := fmt.Sprintf("cq%d", f.nextUpd)
	msg := map[string]any{"message_id": messageID, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chat, "type": "private"}}
	if m, ok := f.messages[fmt.Sprintf("%d:%d", chat, messageID)]; ok {
		msg["text"] = m.Text
		if m.ReplyMarkup != nil {
			msg["reply_markup"] = m.ReplyMarkup
		}
	}
	f.updates = append(f.updates, telegramUpdate{UpdateID: f.nextUpd, CallbackQuery: map[string]any{
		"id": qid, "from": map[string]any{"id": user, "is_bot": false, "first_name": "Someone"},
		"message": msg, "chat_instance": "42", "data": data}})
	select {
	case f.arrived <- struct{}{}:
	default:
	}
	return qid
}

// Pending returns how many updates the bot has not confirmed.
func (f *Telegram) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.updates)
}

func (f *Telegram) fail(w http.ResponseWriter, code int, desc string) {
	b, _ := json.Marshal(map[string]any{"ok": false, "error_code": code, "description": desc})
	writeJSON(w, code, string(b))
}

func (f *Telegram) ok(w http.ResponseWriter, result any) {
	b, _ := json.Marshal(map[string]any{"ok": true, "result": result})
	writeJSON(w, http.StatusOK, string(b))
}

func (f *Telegram) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		f.fail(w, 404, "Not Found")
		return
	}
	if token != f.Token {
		f.fail(w, 401, "Unauthorized")
		return
	}
	var in map[string]json.RawMessage
	if len(rec.Body) > 0 {
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal(rec.Body, &in) != nil {
			f.fail(w, 400, "Bad Request: invalid request body")
			return
		}
	}
	switch method {
	case "sendMessage":
		f.sendMessage(w, in)
	case "editMessageText", "editMessageReplyMarkup":
		f.edit(w, method, in)
	case "answerCallbackQuery":
		f.answerCallback(w, in)
	case "getUpdates":
		f.getUpdates(w, r, in)
	default:
		f.fail(w, 404, "Not Found: method not found")
	}
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func (f *Telegram) chat(raw json.RawMessage) (int64, bool) {
	var id int64
	if json.Unmarshal(raw, &id) != nil {
		return 0, false
	}
	return id, f.Chats[id]
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// checkMarkup validates an inline keyboard as the Bot API does.
func checkMarkup(raw json.RawMessage) (*TelegramMarkup, string) {
	if len(raw) == 0 {
		return nil, ""
	}
	var m TelegramMarkup
	if json.Unmarshal(raw, &m) != nil {
		return nil, "Bad Request: can't parse reply keyboard markup JSON object"
	}
	for _, row := range m.InlineKeyboard {
		for _, b := range row {
			switch {
			case b.Text == "":
				return nil, "Bad Request: text buttons are unallowed in the inline keyboard"
			case b.URL != "" && !strings.HasPrefix(b.URL, "https://") && !strings.HasPrefix(b.URL, "http://"):
				return nil, "Bad Request: inline keyboard button URL '" + b.URL + "' is invalid: unsupported URL protocol"
			case b.URL == "" && (len(b.CallbackData) < 1 || len(b.CallbackData) > 64):
				return nil, "Bad Request: BUTTON_DATA_INVALID"
			}
		}
	}
	return &m, ""
}

// markdownProblem reports what Telegram's legacy Markdown parser refuses:
// an entity opened and never closed.
func markdownProblem(text string) string {
	for _, mark := range []byte{'*', '_', '`'} {
		if n := strings.Count(text, string(mark)); n%2 == 1 {
			return fmt.Sprintf("Bad Request: can't parse entities: Can't find end of the entity starting at byte offset %d", strings.LastIndexByte(text, mark))
		}
	}
	return ""
}

func (f *Telegram) sendMessage(w http.ResponseWriter, in map[string]json.RawMessage) {
	chat, known := f.chat(in["chat_id"])
	if !known {
		f.fail(w, 400, "Bad Request: chat not found")
		return
	}
	text := str(in["text"])
	switch {
	case strings.TrimSpace(text) == "":
		f.fail(w, 400, "Bad Request: message text is empty")
		return
	case utf16Len(text) > 4096:
		f.fail(w, 400, "Bad Request: message is too long")
		return
	}
	mode := str(in["parse_mode"])
	if mode == "Markdown" || mode == "MarkdownV2" {
		if p := markdownProblem(text); p != "" {
			f.fail(w, 400, p)
			return
		}
	}
	markup, problem := checkMarkup(in["reply_markup"])
	if problem != "" {
		f.fail(w, 400, problem)
		return
	}
	var silent bool
	json.Unmarshal(in["disable_notification"], &silent)
	f.mu.Lock()
	f.nextMsg++
	m := &TelegramMessage{ChatID: chat, MessageID: f.nextMsg, Text: text, ParseMode: mode, DisableNotification: silent, ReplyMarkup: markup}
	f.messages[fmt.Sprintf("%d:%d", chat, m.MessageID)] = m
	f.mu.Unlock()
	f.ok(w, map[string]any{"message_id": m.MessageID, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chat, "type": "private"}, "text": text, "reply_markup": markup})
}

func (f *Telegram) edit(w http.ResponseWriter, method string, in map[string]json.RawMessage) {
	chat, _ := f.chat(in["chat_id"])
	var id int
	json.Unmarshal(in["message_id"], &id)
	markup, problem := checkMarkup(in["reply_markup"])
	if problem != "" {
		f.fail(w, 400, problem)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.messages[fmt.Sprintf("%d:%d", chat, id)]
	if !ok {
		f.fail(w, 400, "Bad Request: message to edit not found")
		return
	}
	text := m.Text
	if method == "editMessageText" {
		text = str(in["text"])
		if strings.TrimSpace(text) == "" || utf16Len(text) > 4096 {
			f.fail(w, 400, "Bad Request: message text is empty or too long")
			return
		}
	}
	same, _ := json.Marshal(m.ReplyMarkup)
	next, _ := json.Marshal(markup)
	if text == m.Text && string(same) == string(next) {
		f.fail(w, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
		return
	}
	m.Text, m.ReplyMarkup = text, markup
	m.Edits++
	b, _ := json.Marshal(map[string]any{"ok": true, "result": map[string]any{"message_id": id,
		"chat": map[string]any{"id": chat, "type": "private"}, "text": text, "reply_markup": markup}})
	writeJSON(w, http.StatusOK, string(b))
}

func (f *Telegram) answerCallback(w http.ResponseWriter, in map[string]json.RawMessage) {
	id := str(in["callback_query_id"])
	var alert bool
	json.Unmarshal(in["show_alert"], &alert)
	f.mu.Lock()
	_, twice := f.answered[id]
	known := strings.HasPrefix(id, "cq")
	if known && !twice {
		f.answered[id] = TelegramAnswer{Text: str(in["text"]), ShowAlert: alert}
	}
	f.mu.Unlock()
	if !known || twice {
		f.fail(w, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
		return
	}
	if utf16Len(str(in["text"])) > 200 {
		f.fail(w, 400, "Bad Request: MESSAGE_TOO_LONG")
		return
	}
	f.ok(w, true)
}

func (f *Telegram) getUpdates(w http.ResponseWriter, r *http.Request, in map[string]json.RawMessage) {
	var offset, timeout int
	json.Unmarshal(in["offset"], &offset)
	json.Unmarshal(in["timeout"], &timeout)
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		f.mu.Lock()
		// An offset confirms every update before it: they are forgotten.
		var keep []telegramUpdate
		for _, u := range f.updates {
			if u.UpdateID >= offset {
				keep = append(keep, u)
			}
		}
		f.updates = keep
		out := append([]telegramUpdate{}, keep...)
		f.mu.Unlock()
		if len(out) > 0 || timeout == 0 {
			f.ok(w, out)
			return
		}
		select {
		case <-f.arrived:
		case <-deadline:
			f.ok(w, []telegramUpdate{})
			return
		case <-r.Context().Done():
			return
		}
	}
}
