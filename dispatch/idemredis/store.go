package idemredis

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/dispatch"
)

// DefaultPrefix starts every key the store writes when New gets "".
const DefaultPrefix = "heddle:idem:"

// Defaults for New and its options.
const (
	DefaultWindow         = 60 * time.Second
	DefaultLease          = 15 * time.Second
	DefaultMaxResultBytes = 4 << 20
	defaultPollMin        = 10 * time.Millisecond
	defaultPollMax        = 250 * time.Millisecond
	finishTimeout         = 5 * time.Second
)

// Store is a dispatch.Idempotency shared by every replica on one Redis.
// Safe for concurrent use.
type Store struct {
	rdb       redis.UniversalClient
	prefix    string
	window    time.Duration
	lease     time.Duration
	pollMin   time.Duration
	pollMax   time.Duration
	maxResult int
	log       *slog.Logger

	mu    sync.Mutex
	local map[string]*flight // claims this Store owns, by Redis key
}

// flight is a claim owned by this Store; same-replica duplicates wait on it.
type flight struct {
	token string
	done  chan struct{}
	res   *dispatch.Result
	err   error
}

var _ dispatch.Idempotency = (*Store)(nil)

// Option tunes a Store.
type Option func(*Store)

// WithLease sets how long a claim survives without renewal (default
// DefaultLease); the owner renews it every third of that while it runs, so
// a crashed replica's key is freed within one lease.
func WithLease(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.lease = d
		}
	}
}

// WithPoll sets the backoff of duplicates waiting on another replica's claim:
// from min, doubling up to max (defaults 10ms and 250ms).
func WithPoll(min, max time.Duration) Option {
	return func(s *Store) {
		if min > 0 && max >= min {
			s.pollMin, s.pollMax = min, max
		}
	}
}

// WithMaxResultBytes bounds a stored result's encoded size (default
// DefaultMaxResultBytes); a larger result frees its key instead.
func WithMaxResultBytes(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxResult = n
		}
	}
}

// WithLogger receives warnings when Finish cannot reach Redis (default: a
// discarding logger). Only hashed keys are logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) {
		if l != nil {
			s.log = l
		}
	}
}

// New returns a Store over rdb writing keys under prefix (DefaultPrefix when
// empty) and keeping finished results for window (DefaultWindow when <= 0).
// Each idempotency key becomes prefix + hex(sha256(key)), a Redis hash.
func New(rdb redis.UniversalClient, prefix string, window time.Duration, opts ...Option) *Store {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if window <= 0 {
		window = DefaultWindow
	}
	s := &Store{
		rdb: rdb, prefix: prefix, window: window, lease: DefaultLease,
		pollMin: defaultPollMin, pollMax: defaultPollMax, maxResult: DefaultMaxResultBytes,
		log: slog.New(slog.DiscardHandler), local: make(map[string]*flight),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Store) redisKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return s.prefix + hex.EncodeToString(sum[:])
}

// record is a key's state as read by the claim script.
type record struct {
	fp     string
	stream bool
	done   bool
	owner  string
	result string
}

// Begin implements dispatch.Idempotency. Redis errors are returned wrapped;
// a record it cannot read is ErrBadRecord.
func (s *Store) Begin(ctx context.Context, key, fp string, stream bool) (dispatch.Claim, error) {
	rkey := s.redisKey(key)
	delay := s.pollMin
	joined := false // the record was seen in flight: a done record is a join
	for {
		token, err := newToken()
		if err != nil {
			return dispatch.Claim{}, err
		}
		rec, claimed, err := s.claim(ctx, rkey, fp, stream, token)
		if err != nil {
			return dispatch.Claim{}, err
		}
		if claimed {
			return s.own(rkey, token, stream), nil
		}
		if rec.fp != fp {
			return dispatch.Claim{}, dispatch.ErrIdempotencyMismatch
		}
		if rec.done {
			res, err := decodeResult([]byte(rec.result))
			if err != nil {
				return dispatch.Claim{}, err
			}
			return dispatch.Claim{Result: res, Joined: joined}, nil
		}
		if stream || rec.stream {
			return dispatch.Claim{}, dispatch.ErrDuplicateInFlight
		}
		if f := s.localFlight(rkey, rec.owner); f != nil {
			select {
			case <-f.done:
				return dispatch.Claim{Result: f.res, Err: f.err, Joined: true}, nil
			case <-ctx.Done():
				return dispatch.Claim{}, ctx.Err()
			}
		}
		joined = true
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return dispatch.Claim{}, ctx.Err()
		}
		delay = min(delay*2, s.pollMax)
	}
}

// claim runs the claim script: claimed is true when the key was free and is
// now held under token; otherwise rec is the key's record.
func (s *Store) claim(ctx context.Context, rkey, fp string, stream bool, token string) (rec record, claimed bool, err error) {
	v, err := claimScript.Run(ctx, s.rdb, []string{rkey}, fp, flag(stream), token, s.lease.Milliseconds()).Result()
	if errors.Is(err, redis.Nil) {
		return record{}, true, nil
	}
	if err != nil {
		return record{}, false, fmt.Errorf("idemredis: claim: %w", err)
	}
	f, ok := v.([]any)
	if !ok || len(f) != 5 {
		return record{}, false, fmt.Errorf("%w: reply %T", ErrBadRecord, v)
	}
	str := func(i int) string { x, _ := f[i].(string); return x }
	rec = record{fp: str(0), stream: str(1) == "1", done: str(2) == "done", owner: str(3), result: str(4)}
	if rec.fp == "" || (rec.done && rec.result == "") || (!rec.done && str(2) != "inflight") {
		return record{}, false, fmt.Errorf("%w: incomplete fields", ErrBadRecord)
	}
	return rec, false, nil
}

func (s *Store) localFlight(rkey, owner string) *flight {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.local[rkey]; f != nil && f.token == owner {
		return f
	}
	return nil
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("idemredis: owner token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
