package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Privacy defaults and bounds (SPEC 8): content is stored only when an
// organisation opts in, and then for RetentionDays.
const (
	DefaultRetentionDays = 7
	MinRetentionDays     = 1
	MaxRetentionDays     = 90
	// MaxContentBytes caps each side (prompt, response) of stored content;
	// longer content is cut and marked truncated.
	MaxContentBytes = 256 << 10
)

// PrivacySettings are an organisation's content-storage settings. The zero
// value (no row) is "not stored"; RetentionDays 0 reads as the default.
type PrivacySettings struct {
	StoreContent  bool
	RetentionDays int
	UpdatedAt     time.Time // zero: never changed
}

// DefaultPrivacy is the setting of an organisation that never changed it.
var DefaultPrivacy = PrivacySettings{RetentionDays: DefaultRetentionDays}

// FieldError is an invalid privacy setting; it wraps ErrInvalidPrivacy and
// names the field.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return "analytics: " + e.Field + " " + e.Message }

// Public is the message shown to the admin.
func (e *FieldError) Public() string { return e.Field + " " + e.Message }

// Unwrap makes errors.Is(err, ErrInvalidPrivacy) hold.
func (e *FieldError) Unwrap() error { return ErrInvalidPrivacy }

// Validate checks the retention bounds.
func (s PrivacySettings) Validate() error {
	if s.RetentionDays < MinRetentionDays || s.RetentionDays > MaxRetentionDays {
		return &FieldError{Field: "retention_days", Message: fmt.Sprintf("must be a whole number of days from %d to %d", MinRetentionDays, MaxRetentionDays)}
	}
	return nil
}

// SealedContent is one stored request's content as the store holds it: both
// sides sealed under the organisation's data key version DEKVersion.
type SealedContent struct {
	OrgID, RequestID, KeyID string
	CreatedAt, ExpiresAt    time.Time
	DEKVersion              int64
	Request, Response       []byte // ciphertexts
	RequestTruncated        bool
	ResponseTruncated       bool
}

// ContentStore keeps privacy settings and sealed content. Every method but
// DeleteExpiredContent is scoped to one organisation; none blocks beyond ctx.
type ContentStore interface {
	// GetPrivacy returns orgID's settings, DefaultPrivacy when it has none.
	GetPrivacy(ctx context.Context, orgID string) (PrivacySettings, error)
	// PutPrivacy replaces orgID's settings.
	PutPrivacy(ctx context.Context, orgID string, s PrivacySettings) error
	// InsertContent stores one row; a row already stored for the same org
	// and request id is kept and the new one ignored.
	InsertContent(ctx context.Context, c SealedContent) error
	// Content returns the org's row for requestID, ErrNotFound when there is
	// none (or it expired at or before now).
	Content(ctx context.Context, orgID, requestID string, now time.Time) (SealedContent, error)
	// DeleteContent deletes every row of orgID and returns how many.
	DeleteContent(ctx context.Context, orgID string) (int64, error)
	// DeleteExpiredContent deletes rows of every org that expired at or
	// before now and returns how many.
	DeleteExpiredContent(ctx context.Context, now time.Time) (int64, error)
	// ShortenContent makes every row of orgID expire no later than its
	// creation plus retention and returns how many rows it changed.
	ShortenContent(ctx context.Context, orgID string, retention time.Duration) (int64, error)
}

// ContentSealer encrypts content for one org and request
// (tenancy.Vault.SealContent/OpenContent fit). The id names the sealed item
// (Contents passes "<request id>/prompt" and "<request id>/response").
type ContentSealer interface {
	SealContent(ctx context.Context, orgID, requestID string, plaintext []byte) ([]byte, int64, error)
	OpenContent(ctx context.Context, orgID, requestID string, dekVersion int64, ciphertext []byte) ([]byte, error)
}

// TurnContent is what a finished turn hands over for storage.
type TurnContent struct {
	OrgID, KeyID, RequestID string
	Time                    time.Time
	Request                 *llm.Request
	Response                *llm.Response
}

// Content is one request's stored content, opened. Request and Response are
// JSON text (see RequestJSON and ResponseJSON), cut at MaxContentBytes when
// the Truncated flag says so (then no longer valid JSON).
type Content struct {
	RequestID         string
	KeyID             string
	CreatedAt         time.Time
	ExpiresAt         time.Time
	Request           string
	Response          string
	RequestTruncated  bool
	ResponseTruncated bool
}

// contentPart is one part of a message as stored: text, tool calls and
// results; images and documents keep their media type and size only.
type contentPart struct {
	Type      string        `json:"type"`
	Text      string        `json:"text,omitempty"`
	ID        string        `json:"id,omitempty"`
	Name      string        `json:"name,omitempty"`
	Arguments string        `json:"arguments,omitempty"`
	Result    []contentPart `json:"result,omitempty"`
	IsError   bool          `json:"is_error,omitempty"`
	URL       string        `json:"url,omitempty"`
	MediaType string        `json:"media_type,omitempty"`
	DataBytes int           `json:"data_bytes,omitempty"`
}

func partsOf(ps []llm.Part) []contentPart {
	out := make([]contentPart, 0, len(ps))
	for _, p := range ps {
		c := contentPart{Type: string(p.Type), Text: p.Text, ID: p.ID, Name: p.Name, Arguments: p.Arguments,
			IsError: p.IsError, URL: p.URL, MediaType: p.MediaType}
		switch p.Type {
		case llm.PartImage, llm.PartDocument, llm.PartRedactedThinking:
			c.DataBytes = len(p.Data)
		}
		if len(p.Result) > 0 {
			c.Result = partsOf(p.Result)
		}
		out = append(out, c)
	}
	return out
}

type contentMessage struct {
	Role    string        `json:"role"`
	Name    string        `json:"name,omitempty"`
	Content []contentPart `json:"content"`
}

type contentTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// RequestJSON renders the canonical request's system, messages and tools.
func RequestJSON(r *llm.Request) ([]byte, error) {
	v := struct {
		Model    string           `json:"model,omitempty"`
		System   []contentPart    `json:"system,omitempty"`
		Messages []contentMessage `json:"messages"`
		Tools    []contentTool    `json:"tools,omitempty"`
	}{Model: r.Model, System: partsOf(r.System), Messages: make([]contentMessage, 0, len(r.Messages))}
	for _, m := range r.Messages {
		v.Messages = append(v.Messages, contentMessage{Role: string(m.Role), Name: m.Name, Content: partsOf(m.Content)})
	}
	for _, t := range r.Tools {
		tl := contentTool{Name: t.Name, Description: t.Description}
		if json.Valid(t.Parameters) {
			tl.Parameters = t.Parameters
		}
		v.Tools = append(v.Tools, tl)
	}
	return marshal(v)
}

// ResponseJSON renders the final answer: its text (text parts joined), its
// tool calls and why it stopped.
func ResponseJSON(r *llm.Response) ([]byte, error) {
	type call struct {
		ID        string `json:"id,omitempty"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	v := struct {
		Model      string `json:"model,omitempty"`
		Text       string `json:"text"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
		StopReason string `json:"stop_reason,omitempty"`
	}{Model: r.Model, StopReason: string(r.StopReason)}
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			v.Text += p.Text
		case llm.PartToolCall:
			v.ToolCalls = append(v.ToolCalls, call{ID: p.ID, Name: p.Name, Arguments: p.Arguments})
		}
	}
	return marshal(v)
}

// marshal is json.Marshal without HTML escaping: the text is shown as
// written (the console escapes it when rendering).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// capContent cuts b to MaxContentBytes (on a UTF-8 boundary) and reports
// whether it did.
func capContent(b []byte) ([]byte, bool) {
	if len(b) <= MaxContentBytes {
		return b, false
	}
	n := MaxContentBytes
	for n > 0 && b[n]&0xC0 == 0x80 {
		n--
	}
	return b[:n], true
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
