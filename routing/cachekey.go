package routing

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// CacheScope is the hard partition of every cache entry: an entry stored
// under one scope is never read under another, whatever the request.
type CacheScope struct {
	OrgID string
	KeyID string
	// User is the caller's end user (llm.Request.User, metadata.user_id);
	// empty means the key's anonymous user, its own partition.
	User string
	// Format is the caller's wire format.
	Format llm.Format
}

func (s CacheScope) validate() error {
	if s.OrgID == "" || s.KeyID == "" || !s.Format.Valid() {
		return fmt.Errorf("%w: org %q, key %q, format %q", ErrCacheScope, s.OrgID, s.KeyID, s.Format)
	}
	return nil
}

// CacheKeys are the keys of one request in the cache. Lookup returns them in
// Hit.Keys; passing them to Store spares a second embedding.
type CacheKeys struct {
	// Exact is the hex SHA-256 of the scope and the canonical encoding of the
	// whole request: model, system, tools, tool choice, messages, sampling
	// and output parameters, user and metadata. Stream flags and cache marks
	// are left out: they do not change the answer.
	Exact string
	// Partition is the hex SHA-256 of the scope, the embedder's fingerprint
	// and everything of the request but the user-authored text of its last
	// message. It is "" when the request has no semantic tier: the last
	// message is not a user message of text only, its authored text is empty
	// or longer than the configured limit, or there is no embedder.
	Partition string
	// Numbers is a digest of the numbers and the code spans (between
	// backticks) in the last message's authored text; a semantic hit needs
	// equal Numbers ("17 x 23" never answers, nor `a = b` `a == b`
	// "17 x 24", however close the embeddings).
	Numbers string
	// Vector is the embedding of the authored text, once computed.
	Vector []float32
}

// CacheKeysOf computes the keys of req under scope without embedding.
// fingerprint is the semantic embedder's (empty: no semantic tier);
// maxTextBytes bounds the authored text the semantic tier accepts
// (DefaultCacheMaxTextBytes when <= 0). It also returns the authored text
// to embed ("" when there is no semantic tier).
func CacheKeysOf(scope CacheScope, req *llm.Request, fingerprint string, maxTextBytes int) (CacheKeys, string, error) {
	if err := scope.validate(); err != nil {
		return CacheKeys{}, "", err
	}
	if req == nil {
		return CacheKeys{}, "", fmt.Errorf("%w: nil request", ErrCacheScope)
	}
	if maxTextBytes <= 0 {
		maxTextBytes = DefaultCacheMaxTextBytes
	}
	exact := newCanon("heddle-cache-exact/v1")
	exact.scope(scope)
	exact.request(req, len(req.Messages))
	keys := CacheKeys{Exact: exact.hex()}

	authored, reminders, ok := lastAuthored(req)
	if !ok || fingerprint == "" || authored == "" || len(authored) > maxTextBytes {
		return keys, "", nil
	}
	part := newCanon("heddle-cache-partition/v1")
	part.scope(scope)
	part.str(fingerprint)
	part.request(req, len(req.Messages)-1)
	last := req.Messages[len(req.Messages)-1]
	part.str(string(last.Role))
	part.str(last.Name)
	part.str(reminders)
	keys.Partition = part.hex()
	keys.Numbers = numbersDigest(authored)
	return keys, authored, nil
}

// lastAuthored splits the last message's text into what the user wrote and
// its <system-reminder> blocks. ok is false unless the last message is a user
// message of text parts only.
func lastAuthored(req *llm.Request) (authored, reminders string, ok bool) {
	if len(req.Messages) == 0 {
		return "", "", false
	}
	m := req.Messages[len(req.Messages)-1]
	if m.Role != llm.RoleUser {
		return "", "", false
	}
	var a, r strings.Builder
	for _, p := range m.Content {
		if p.Type != llm.PartText {
			return "", "", false
		}
		text, rem := splitReminders(p.Text)
		if t := strings.TrimSpace(text); t != "" {
			if a.Len() > 0 {
				a.WriteByte('\n')
			}
			a.WriteString(t)
		}
		r.WriteString(rem)
		r.WriteByte(0)
	}
	return a.String(), r.String(), true
}

// splitReminders separates <system-reminder> blocks (kept whole, tags
// included; an unclosed block runs to the end) from the rest of s.
func splitReminders(s string) (text, reminders string) {
	if !strings.Contains(s, reminderOpen) {
		return s, ""
	}
	var t, r strings.Builder
	for {
		i := strings.Index(s, reminderOpen)
		if i < 0 {
			t.WriteString(s)
			break
		}
		t.WriteString(s[:i])
		j := strings.Index(s[i:], reminderClose)
		if j < 0 {
			r.WriteString(s[i:])
			break
		}
		end := i + j + len(reminderClose)
		r.WriteString(s[i:end])
		s = s[end:]
	}
	return t.String(), r.String()
}

var numberRe = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// numbersDigest is a short digest of the sequence of numbers and of code
// spans in s ("" when it has neither).
func numbersDigest(s string) string {
	nums := numberRe.FindAllString(s, -1)
	code := codeRe.FindAllString(s, -1)
	if len(nums) == 0 && len(code) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(nums, "\x00") + "\x01" + strings.Join(code, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// codeRe matches code spans: fenced blocks and `inline` code. An embedding
// barely tells `a = b` from `a == b`; the literal comparison does.
var codeRe = regexp.MustCompile("(?s)```.*?```|`[^`\n]+`")

// canon writes an unambiguous encoding (length-prefixed strings, fixed-width
// numbers, presence flags for optional fields) straight into a SHA-256.
type canon struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func newCanon(domain string) *canon {
	c := &canon{h: sha256.New()}
	c.str(domain)
	return c
}

func (c *canon) sum() (s [32]byte) {
	c.h.Sum(s[:0])
	return s
}

func (c *canon) hex() string {
	s := c.sum()
	return hex.EncodeToString(s[:])
}

func (c *canon) uint(v uint64) {
	n := binary.PutUvarint(c.buf[:], v)
	c.h.Write(c.buf[:n])
}

func (c *canon) num(v int64) { c.uint(uint64(v)) }

func (c *canon) str(s string) {
	c.uint(uint64(len(s)))
	c.h.Write([]byte(s))
}

func (c *canon) flag(b bool) {
	if b {
		c.uint(1)
	} else {
		c.uint(0)
	}
}

func (c *canon) float(p *float64) {
	c.flag(p != nil)
	if p != nil {
		c.uint(math.Float64bits(*p))
	}
}

// json writes raw JSON compacted (whitespace-insensitive); invalid JSON is
// written as is.
func (c *canon) json(raw []byte) {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	c.str(string(raw))
}

func (c *canon) scope(s CacheScope) {
	c.str(s.OrgID)
	c.str(s.KeyID)
	c.str(s.User)
	c.str(string(s.Format))
}

func (c *canon) part(p llm.Part) {
	c.str(string(p.Type))
	c.str(p.Text)
	c.str(p.URL)
	c.str(p.MediaType)
	c.str(p.Data)
	c.str(p.ID)
	c.str(p.Name)
	c.json([]byte(p.Arguments))
	c.parts(p.Result)
	c.flag(p.IsError)
	c.str(p.Signature)
	c.str(p.Family)
}

func (c *canon) parts(ps []llm.Part) {
	c.uint(uint64(len(ps)))
	for _, p := range ps {
		c.part(p)
	}
}

func (c *canon) message(m llm.Message) {
	c.str(string(m.Role))
	c.str(m.Name)
	c.parts(m.Content)
}

// request encodes every field of r that can change the answer, with the
// first n messages only.
func (c *canon) request(r *llm.Request, n int) {
	c.str(r.Model)
	c.parts(r.System)
	c.uint(uint64(len(r.Tools)))
	for _, t := range r.Tools {
		c.str(t.Name)
		c.str(t.Description)
		c.json(t.Parameters)
		c.flag(t.Strict)
	}
	c.flag(r.ToolChoice != nil)
	if r.ToolChoice != nil {
		c.str(string(r.ToolChoice.Mode))
		c.str(r.ToolChoice.Name)
	}
	c.flag(r.ParallelToolCalls != nil)
	if r.ParallelToolCalls != nil {
		c.flag(*r.ParallelToolCalls)
	}
	c.num(int64(r.MaxTokens))
	c.float(r.Temperature)
	c.float(r.TopP)
	c.flag(r.TopK != nil)
	if r.TopK != nil {
		c.num(int64(*r.TopK))
	}
	c.uint(uint64(len(r.Stop)))
	for _, s := range r.Stop {
		c.str(s)
	}
	c.flag(r.Seed != nil)
	if r.Seed != nil {
		c.num(*r.Seed)
	}
	c.flag(r.ResponseFormat != nil)
	if f := r.ResponseFormat; f != nil {
		c.str(f.Type)
		c.str(f.Name)
		c.json(f.Schema)
		c.flag(f.Strict)
	}
	c.flag(r.Thinking != nil)
	if t := r.Thinking; t != nil {
		c.flag(t.Enabled)
		c.num(int64(t.BudgetTokens))
		c.str(t.Effort)
	}
	c.str(r.User)
	keys := make([]string, 0, len(r.Metadata))
	for k := range r.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c.uint(uint64(len(keys)))
	for _, k := range keys {
		c.str(k)
		c.str(r.Metadata[k])
	}
	c.uint(uint64(n))
	for _, m := range r.Messages[:n] {
		c.message(m)
	}
}
