package clickhouse

import (
	"context"
	"errors"
	"fmt"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"

	"github.com/heddle-gw/heddle/analytics"
)

// Limits bound what one console or report query may cost the server: every
// read carries them as ClickHouse settings, so a query over a huge
// organisation fails with analytics.ErrQueryLimit instead of running for
// minutes.
type Limits struct {
	// MaxExecutionSeconds is ClickHouse's max_execution_time.
	MaxExecutionSeconds int
	// MaxRowsToRead is max_rows_to_read (per query, over all tables read).
	MaxRowsToRead int64
	// MaxMemoryBytes is max_memory_usage.
	MaxMemoryBytes int64
}

// DefaultLimits are generous for a console page (they are hit only by a
// query that would otherwise take far longer than anyone waits).
var DefaultLimits = Limits{MaxExecutionSeconds: 15, MaxRowsToRead: 500_000_000, MaxMemoryBytes: 2 << 30}

// ClickHouse exception codes of the limits above.
const (
	codeTooManyRows    = 158
	codeTimeout        = 159
	codeTooManyBytes   = 307
	codeMemoryExceeded = 241
)

// readCtx returns ctx carrying the Store's limits as query settings.
func (s *Store) readCtx(ctx context.Context) context.Context { return s.readCtxWith(ctx, nil) }

// readCtxWith is readCtx with more settings for one query.
func (s *Store) readCtxWith(ctx context.Context, more ch.Settings) context.Context {
	l := s.limits
	settings := ch.Settings{
		"max_execution_time": l.MaxExecutionSeconds,
		"max_rows_to_read":   int(l.MaxRowsToRead),
		"max_memory_usage":   int(l.MaxMemoryBytes),
	}
	for k, v := range more {
		settings[k] = v
	}
	return ch.Context(ctx, ch.WithSettings(settings))
}

// readErr wraps a query error; one that hit a limit also wraps
// analytics.ErrQueryLimit so the console can say so plainly.
func readErr(what string, err error) error {
	var ex *proto.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case codeTooManyRows, codeTimeout, codeTooManyBytes, codeMemoryExceeded:
			return fmt.Errorf("clickhouse: %s: %w: %w", what, analytics.ErrQueryLimit, err)
		}
	}
	return fmt.Errorf("clickhouse: %s: %w", what, err)
}
