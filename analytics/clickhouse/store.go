package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/heddle-gw/heddle/analytics"
)

// Store is the ClickHouse analytics.Store and analytics.Reader. It is safe
// for concurrent use.
type Store struct {
	conn   driver.Conn
	limits Limits
	now    func() time.Time // the explorer's first window ends here
	epochs *epochs          // rollupStart once read
	// listBudget is how many rows an explorer page reads before it stops
	// searching older (listReadBudget; tests lower it).
	listBudget int64
	// exactQuantiles is how many requests Summary's percentiles are exact
	// for (exactQuantileRows; tests lower it).
	exactQuantiles int64
	// rankTies is how many hashes (users times parts) a page by user's
	// integer rank may leave to the sum pass (maxRankTies; tests lower it).
	rankTies int
}

var (
	_ analytics.Store         = (*Store)(nil)
	_ analytics.FreshInserter = (*Store)(nil)
	_ analytics.Reader        = (*Store)(nil)
)

// Open connects to the ClickHouse server at url (for example
// "clickhouse://127.0.0.1:9000/default"; the path names the database),
// checks the connection and applies the migrations.
func Open(ctx context.Context, url string) (*Store, error) {
	opts, err := ch.ParseDSN(url)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: parse url: %w", err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: open: %w", err)
	}
	if err := conn.Ping(ctx); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("clickhouse: ping %s: %w", redact(url), err)
	}
	s := New(conn)
	if err := s.Migrate(ctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

// New returns a Store over an open connection; it does not migrate.
func New(conn driver.Conn) *Store {
	return &Store{conn: conn, limits: DefaultLimits, now: time.Now, epochs: &epochs{}, listBudget: listReadBudget,
		exactQuantiles: exactQuantileRows, rankTies: maxRankTies}
}

// WithLimits returns a copy of s whose reads carry l instead.
func (s *Store) WithLimits(l Limits) *Store {
	c := *s
	c.limits = l
	return &c
}

// Conn returns the underlying connection (for benchmarks and tests).
func (s *Store) Conn() driver.Conn { return s.conn }

// Close closes the connection.
func (s *Store) Close() error { return s.conn.Close() }

// redact drops the password from a URL before it reaches an error message.
func redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return url
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + ":***@" + rest[at+1:]
}
