package app

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

var _ analytics.HealthReader = (*lazyClickHouse)(nil)

// Health implements analytics.HealthReader (the console's provider health
// page) once ClickHouse is connected.
func (l *lazyClickHouse) Health(ctx context.Context, orgID string, from, to time.Time) ([]analytics.BindingHealth, error) {
	s, err := l.current()
	if err != nil {
		return nil, err
	}
	return s.Health(ctx, orgID, from, to)
}
