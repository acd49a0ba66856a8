package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
)

// Channels manages the configured channels beyond Web Push (implemented
// by *channel.Dispatcher). Errors wrap channel.ErrNoChannel,
// ErrNameTaken, ErrBadName, ErrBadURL and ErrNotTokened.
type Channels interface {
	List(ctx context.Context) ([]channel.View, error)
	Add(ctx context.Context, name, rawURL string, kinds map[string]*bool) (channel.View, error)
	Remove(ctx context.Context, name string) error
	SetKinds(ctx context.Context, name string, kinds map[string]*bool) (channel.View, error)
	Test(ctx context.Context, name string) (deliver.DeviceOutcome, error)
	RegisterToken(ctx context.Context, name, token string) (revived bool, err error)
}

// Errors of the channel endpoints.
var (
	errBadChannelName = &Error{http.StatusBadRequest, 40030, "a channel name is 1 to 40 letters, digits, '.', '_' or '-', e.g. phone-ntfy"}
	errBadChannelURL  = &Error{http.StatusBadRequest, 40031, "bad channel URL"}
	errBadChannelReq  = &Error{http.StatusBadRequest, 40032, "a channel is {\"name\", \"url\", \"kinds\"}; kinds maps blocked, asked, finished or error to true, false or null"}
	errNotTokened     = &Error{http.StatusBadRequest, 40033, "only fcm channels take device tokens"}
	errNoChannel      = &Error{http.StatusNotFound, 40430, "no channel by that name: GET /api/channels (or `attn channel list`) shows them"}
	errChannelTaken   = &Error{http.StatusConflict, 40930, "a channel by that name exists: pick another name, or remove it first"}
	errChannelsOff    = &Error{http.StatusServiceUnavailable, 50330, "channels are not enabled in this daemon"}
)

// channelError maps the channel package's errors to the catalog; the
// messages never repeat a URL (it may hold a token).
func channelError(err error) error {
	switch {
	case errors.Is(err, channel.ErrNoChannel):
		return errNoChannel
	case errors.Is(err, channel.ErrNameTaken):
		return errChannelTaken
	case errors.Is(err, channel.ErrBadName):
		return errBadChannelName
	case errors.Is(err, channel.ErrNotTokened):
		return errNotTokened
	case errors.Is(err, channel.ErrBadURL):
		return errBadChannelURL.with("%s", strings.TrimPrefix(err.Error(), channel.ErrBadURL.Error()+": "))
	}
	return err
}

// ChannelView is one channel as GET /api/channels shows it: its URL with
// every secret replaced by "***", which kinds may interrupt through it,
// what it can carry and its last outcome.
type ChannelView struct {
	channel.View
	// Kinds resolves the channel's choices over the defaults.
	Kinds map[string]bool `json:"kinds"`
}

func (s *Server) channelView(v channel.View) ChannelView {
	return ChannelView{View: v, Kinds: effectiveKinds(v.Choices)}
}

// ChannelRequest is the body of POST /api/channels and PATCH
// /api/channels/{name} (name and url are ignored by PATCH).
type ChannelRequest struct {
	Name  string           `json:"name"`
	URL   string           `json:"url"`
	Kinds map[string]*bool `json:"kinds"`
}

func (s *Server) channelsOn() error {
	if s.cfg.Channels == nil {
		return errChannelsOff
	}
	return nil
}

func checkKinds(kinds map[string]*bool) error {
	for k := range kinds {
		if !slices.Contains(choosableKinds, notification.Kind(k)) {
			return errBadKinds.with("unknown kind %q", k)
		}
	}
	return nil
}

func (s *Server) listChannels(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	views, err := s.cfg.Channels.List(r.Context())
	if err != nil {
		return err
	}
	out := make([]ChannelView, 0, len(views))
	for _, v := range views {
		out = append(out, s.channelView(v))
	}
	return writeJSON(w, http.StatusOK, map[string]any{"channels": out})
}

func (s *Server) addChannel(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	var req ChannelRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Name == "" || req.URL == "" {
		return errBadChannelReq
	}
	if err := checkKinds(req.Kinds); err != nil {
		return err
	}
	v, err := s.cfg.Channels.Add(r.Context(), req.Name, req.URL, req.Kinds)
	if err != nil {
		return channelError(err)
	}
	s.cfg.Log.Info("channel added", "channel", v.Name, "kind", v.Kind)
	return writeJSON(w, http.StatusCreated, map[string]any{"channel": s.channelView(v)})
}

func (s *Server) patchChannel(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	var req ChannelRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if err := checkKinds(req.Kinds); err != nil {
		return err
	}
	v, err := s.cfg.Channels.SetKinds(r.Context(), r.PathValue("name"), req.Kinds)
	if err != nil {
		return channelError(err)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"channel": s.channelView(v)})
}

func (s *Server) removeChannel(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	if err := s.cfg.Channels.Remove(r.Context(), r.PathValue("name")); err != nil {
		return channelError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ChannelTestResponse says what became of a test notification on one
// channel.
type ChannelTestResponse struct {
	Sent    bool   `json:"sent"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

func (s *Server) testChannel(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Minute)
	defer cancel()
	out, err := s.cfg.Channels.Test(ctx, r.PathValue("name"))
	if err != nil {
		return channelError(err)
	}
	return writeJSON(w, http.StatusOK, ChannelTestResponse{Sent: out.Outcome == string(channel.StatusDelivered), Outcome: out.Outcome, Detail: out.Detail})
}

func (s *Server) addChannelToken(w http.ResponseWriter, r *http.Request) error {
	if err := s.channelsOn(); err != nil {
		return err
	}
	var req struct {
		Token string `json:"token"`
	}
	if err := decode(w, r, &req); err != nil {
		return err
	}
	revived, err := s.cfg.Channels.RegisterToken(r.Context(), r.PathValue("name"), req.Token)
	if err != nil {
		return channelError(err)
	}
	return writeJSON(w, http.StatusOK, map[string]bool{"revived": revived})
}
