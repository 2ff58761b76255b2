package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/internal/ttlcache"
)

// DefaultPrivacyTTL is how long one replica trusts an organisation's cached
// privacy settings: turning storage off through another replica stops new
// rows everywhere within it (through this replica, at once).
const DefaultPrivacyTTL = 5 * time.Second

// maxCachedPrivacy bounds the settings cache; when full it is emptied.
const maxCachedPrivacy = 10000

// ContentsConfig configures Contents.
type ContentsConfig struct {
	TTL     time.Duration    // settings cache; 0 means DefaultPrivacyTTL
	Timeout time.Duration    // each store call; 0 means 2 s
	Now     func() time.Time // nil means time.Now
}

// Contents is the opt-in storage of prompt and response content (SPEC 8):
// organisations' privacy settings (cached per replica for the request path)
// and their sealed content. Content is sealed before it reaches the store
// and never logged. Safe for concurrent use.
type Contents struct {
	store   ContentStore
	sealer  ContentSealer
	timeout time.Duration
	now     func() time.Time
	cache   *ttlcache.Cache[PrivacySettings]
}

// NewContents returns the content service over store and sealer.
func NewContents(store ContentStore, sealer ContentSealer, cfg ContentsConfig) *Contents {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultPrivacyTTL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Contents{store: store, sealer: sealer, timeout: cfg.Timeout, now: cfg.Now,
		cache: ttlcache.New[PrivacySettings](cfg.TTL, maxCachedPrivacy, cfg.Now)}
}

// Enabled reports whether orgID stores content, from the cache while it is
// younger than the TTL. It fails closed: false when the setting cannot be
// read.
func (c *Contents) Enabled(ctx context.Context, orgID string) bool {
	s, err := c.cached(ctx, orgID)
	return err == nil && s.StoreContent
}

func (c *Contents) cached(ctx context.Context, orgID string) (PrivacySettings, error) {
	return c.cache.Get(ctx, orgID, func(ctx context.Context) (PrivacySettings, error) { return c.Settings(ctx, orgID) })
}

// Settings reads orgID's settings from the store, bypassing the cache.
// Errors wrap ErrPrivacyUnavailable.
func (c *Contents) Settings(ctx context.Context, orgID string) (PrivacySettings, error) {
	if orgID == "" {
		return PrivacySettings{}, ErrOrgRequired
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	s, err := c.store.GetPrivacy(ctx, orgID)
	if err != nil {
		return PrivacySettings{}, fmt.Errorf("%w: reading privacy settings of %s: %w", ErrPrivacyUnavailable, orgID, err)
	}
	if s.RetentionDays == 0 {
		s.RetentionDays = DefaultRetentionDays
	}
	return s, nil
}

// SetSettings validates s (a *FieldError when wrong), stores it with
// UpdatedAt now, drops the cached entry and returns the stored settings.
// Turning storage off deletes nothing: stored rows expire as planned.
func (c *Contents) SetSettings(ctx context.Context, orgID string, s PrivacySettings) (PrivacySettings, error) {
	if orgID == "" {
		return PrivacySettings{}, ErrOrgRequired
	}
	if err := s.Validate(); err != nil {
		return PrivacySettings{}, err
	}
	s.UpdatedAt = c.now().UTC().Truncate(time.Millisecond)
	put := func() error {
		ctx, cancel := context.WithTimeout(ctx, c.timeout)
		defer cancel()
		return c.store.PutPrivacy(ctx, orgID, s)
	}
	if err := put(); err != nil {
		return PrivacySettings{}, fmt.Errorf("%w: storing privacy settings of %s: %w", ErrPrivacyUnavailable, orgID, err)
	}
	c.Invalidate(orgID)
	// A shorter retention applies to what is already stored, too.
	shorten := func() error {
		ctx, cancel := context.WithTimeout(ctx, 4*c.timeout)
		defer cancel()
		_, err := c.store.ShortenContent(ctx, orgID, time.Duration(s.RetentionDays)*24*time.Hour)
		return err
	}
	if err := shorten(); err != nil {
		return PrivacySettings{}, fmt.Errorf("%w: applying the retention of %s to stored content: %w", ErrPrivacyUnavailable, orgID, err)
	}
	return c.Settings(ctx, orgID)
}

// Invalidate drops orgID's cached settings.
func (c *Contents) Invalidate(orgID string) { c.cache.Invalidate(orgID) }

// Keep stores one turn's content when its organisation opted in (and does
// nothing otherwise, or when the setting cannot be read). It blocks on the
// sealer and the store: call it off the request path. Errors never carry
// the content.
func (c *Contents) Keep(ctx context.Context, t TurnContent) error {
	if t.OrgID == "" || t.RequestID == "" || t.Request == nil || t.Response == nil {
		return fmt.Errorf("analytics: keep content: org, request id, request and response are required")
	}
	s, err := c.cached(ctx, t.OrgID)
	if err != nil || !s.StoreContent {
		return err
	}
	req, err := RequestJSON(t.Request)
	if err != nil {
		return fmt.Errorf("analytics: encode request content of %s: %w", t.RequestID, err)
	}
	resp, err := ResponseJSON(t.Response)
	if err != nil {
		return fmt.Errorf("analytics: encode response content of %s: %w", t.RequestID, err)
	}
	created := t.Time
	if created.IsZero() {
		created = c.now()
	}
	created = created.UTC().Truncate(time.Millisecond)
	row := SealedContent{OrgID: t.OrgID, RequestID: t.RequestID, KeyID: t.KeyID, CreatedAt: created,
		ExpiresAt: created.Add(time.Duration(s.RetentionDays) * 24 * time.Hour)}
	req, row.RequestTruncated = capContent(req)
	resp, row.ResponseTruncated = capContent(resp)
	var v1, v2 int64
	if row.Request, v1, err = c.sealer.SealContent(ctx, t.OrgID, sealedItem(t.RequestID, "prompt"), req); err != nil {
		return fmt.Errorf("analytics: seal request content of %s: %w", t.RequestID, err)
	}
	if row.Response, v2, err = c.sealer.SealContent(ctx, t.OrgID, sealedItem(t.RequestID, "response"), resp); err != nil {
		return fmt.Errorf("analytics: seal response content of %s: %w", t.RequestID, err)
	}
	if v1 != v2 {
		return fmt.Errorf("analytics: data key of %s changed while sealing request %s; content not stored", t.OrgID, t.RequestID)
	}
	row.DEKVersion = v1
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.store.InsertContent(ctx, row); err != nil {
		return fmt.Errorf("%w: insert content of %s: %w", ErrPrivacyUnavailable, t.RequestID, err)
	}
	return nil
}

// Get returns orgID's stored content of requestID, opened. ErrNotFound when
// there is none, it expired, or it belongs to another organisation.
func (c *Contents) Get(ctx context.Context, orgID, requestID string) (Content, error) {
	if orgID == "" {
		return Content{}, ErrOrgRequired
	}
	if requestID == "" {
		return Content{}, ErrNotFound
	}
	row, err := c.load(ctx, orgID, requestID)
	if err != nil {
		return Content{}, err
	}
	req, err := c.sealer.OpenContent(ctx, orgID, sealedItem(requestID, "prompt"), row.DEKVersion, row.Request)
	if err != nil {
		return Content{}, fmt.Errorf("analytics: open request content of %s: %w", requestID, err)
	}
	resp, err := c.sealer.OpenContent(ctx, orgID, sealedItem(requestID, "response"), row.DEKVersion, row.Response)
	if err != nil {
		return Content{}, fmt.Errorf("analytics: open response content of %s: %w", requestID, err)
	}
	return Content{RequestID: requestID, KeyID: row.KeyID, CreatedAt: row.CreatedAt.UTC(), ExpiresAt: row.ExpiresAt.UTC(),
		Request: string(req), Response: string(resp), RequestTruncated: row.RequestTruncated, ResponseTruncated: row.ResponseTruncated}, nil
}

func (c *Contents) load(ctx context.Context, orgID, requestID string) (SealedContent, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	row, err := c.store.Content(ctx, orgID, requestID, c.now())
	if err != nil && !isNotFound(err) {
		return row, fmt.Errorf("%w: read content of %s: %w", ErrPrivacyUnavailable, requestID, err)
	}
	return row, err
}

// DeleteAll deletes every stored content row of orgID now and returns how
// many.
func (c *Contents) DeleteAll(ctx context.Context, orgID string) (int64, error) {
	if orgID == "" {
		return 0, ErrOrgRequired
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	n, err := c.store.DeleteContent(ctx, orgID)
	if err != nil {
		return n, fmt.Errorf("%w: delete content of %s: %w", ErrPrivacyUnavailable, orgID, err)
	}
	return n, nil
}

// DeleteExpired deletes every organisation's rows whose retention ended
// and returns how many (the janitor calls it).
func (c *Contents) DeleteExpired(ctx context.Context) (int64, error) {
	n, err := c.store.DeleteExpiredContent(ctx, c.now())
	if err != nil {
		return n, fmt.Errorf("%w: delete expired content: %w", ErrPrivacyUnavailable, err)
	}
	return n, nil
}

// sealedItem names one side of a request's content for the sealer, so the
// prompt and the response are bound to their side: swapped in the database,
// neither opens.
func sealedItem(requestID, side string) string { return requestID + "/" + side }
