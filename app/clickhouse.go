package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	chstore "github.com/heddle-gw/heddle/analytics/clickhouse"
)

// lazyClickHouse is the ClickHouse analytics store, connected (and migrated)
// in the background so that Heddle starts and serves while ClickHouse is
// down. Until it is connected every call fails with an error wrapping
// analytics.ErrUnavailable: the writer spills at once, the console's
// reports say analytics are unavailable. Once connected it stays connected
// (the driver's pool redials on its own) and the writer is told to retry.
type lazyClickHouse struct {
	url     string
	log     *slog.Logger
	onReady func() // called once, when the store is connected

	store   atomic.Pointer[chstore.Store]
	lastErr atomic.Pointer[string] // why the last connection attempt failed
	stop    context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

var (
	_ analytics.Store         = (*lazyClickHouse)(nil)
	_ analytics.FreshInserter = (*lazyClickHouse)(nil)
	_ analytics.Reader        = (*lazyClickHouse)(nil)
)

// Bounds of the background connection attempts.
const (
	chDialTimeout = 5 * time.Second
	chRetryFirst  = 250 * time.Millisecond
	chRetryMax    = 5 * time.Second
)

// newLazyClickHouse returns the store of the ClickHouse server at url; it
// connects once start is called. A malformed url fails here, not in the
// background.
func newLazyClickHouse(url string, logger *slog.Logger) (*lazyClickHouse, error) {
	if _, err := ch.ParseDSN(url); err != nil {
		return nil, fmt.Errorf("HEDDLE_CLICKHOUSE_URL: %w", err)
	}
	l := &lazyClickHouse{url: url, log: logger, done: make(chan struct{})}
	msg := "connecting"
	l.lastErr.Store(&msg)
	l.stop = func() {}
	return l, nil
}

// start connects in the background; onReady is called once connected.
func (l *lazyClickHouse) start(onReady func()) {
	ctx, cancel := context.WithCancel(context.Background())
	l.stop, l.onReady = cancel, onReady
	go l.connect(ctx)
}

// connect tries chstore.Open until it succeeds or ctx ends, backing off
// from chRetryFirst to chRetryMax. It logs the first failure and the
// recovery, not every try.
func (l *lazyClickHouse) connect(ctx context.Context) {
	defer close(l.done)
	delay := chRetryFirst
	for tries := 1; ; tries++ {
		dctx, cancel := context.WithTimeout(ctx, chDialTimeout)
		s, err := chstore.Open(dctx, l.url)
		cancel()
		if err == nil {
			l.store.Store(s)
			if tries > 1 {
				l.log.Info("clickhouse connected", "tries", tries)
			}
			if l.onReady != nil {
				l.onReady()
			}
			return
		}
		msg := err.Error()
		l.lastErr.Store(&msg)
		if tries == 1 {
			l.log.Warn("clickhouse unreachable: analytics spill to disk until it answers", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, chRetryMax)
	}
}

// current returns the connected store or an error wrapping
// analytics.ErrUnavailable.
func (l *lazyClickHouse) current() (*chstore.Store, error) {
	if s := l.store.Load(); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("app: clickhouse: %w (%s)", analytics.ErrUnavailable, *l.lastErr.Load())
}

// Ping reports whether ClickHouse answers now.
func (l *lazyClickHouse) Ping(ctx context.Context) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.Conn().Ping(ctx)
}

// Close stops connecting and closes the connection.
func (l *lazyClickHouse) Close() error {
	var err error
	l.once.Do(func() {
		l.stop()
		if l.onReady != nil { // started
			<-l.done
		}
		if s := l.store.Load(); s != nil {
			err = s.Close()
		}
	})
	return err
}

func (l *lazyClickHouse) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.InsertAttempts(ctx, rows)
}

func (l *lazyClickHouse) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.InsertRequests(ctx, rows)
}

// InsertFreshAttempts passes the Writer's first tries through to the
// store's analytics.FreshInserter.
func (l *lazyClickHouse) InsertFreshAttempts(ctx context.Context, rows []analytics.Attempt) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.InsertFreshAttempts(ctx, rows)
}

// InsertFreshRequests passes the Writer's first tries through to the
// store's analytics.FreshInserter.
func (l *lazyClickHouse) InsertFreshRequests(ctx context.Context, rows []analytics.Request) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.InsertFreshRequests(ctx, rows)
}

func (l *lazyClickHouse) ListRequests(ctx context.Context, orgID string, f analytics.RequestFilter, cursor string, limit int) (analytics.RequestPage, error) {
	s, err := l.current()
	if err != nil {
		return analytics.RequestPage{}, err
	}
	return s.ListRequests(ctx, orgID, f, cursor, limit)
}

func (l *lazyClickHouse) Timeline(ctx context.Context, orgID, requestID string) (analytics.RequestTimeline, error) {
	s, err := l.current()
	if err != nil {
		return analytics.RequestTimeline{}, err
	}
	return s.Timeline(ctx, orgID, requestID)
}

func (l *lazyClickHouse) Summary(ctx context.Context, orgID string, from, to time.Time) (analytics.Summary, error) {
	s, err := l.current()
	if err != nil {
		return analytics.Summary{}, err
	}
	return s.Summary(ctx, orgID, from, to)
}

func (l *lazyClickHouse) Breakdown(ctx context.Context, orgID string, from, to time.Time, by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	s, err := l.current()
	if err != nil {
		return nil, err
	}
	return s.Breakdown(ctx, orgID, from, to, by)
}

func (l *lazyClickHouse) EachBreakdown(ctx context.Context, orgID string, q analytics.BreakdownQuery, fn func(analytics.BreakdownRow) error) error {
	s, err := l.current()
	if err != nil {
		return err
	}
	return s.EachBreakdown(ctx, orgID, q, fn)
}
