package web

import (
	"strconv"
	"time"
)

// Dashboard ranges: the presets the range picker offers, and the default.
const (
	range24h    = "24h"
	range7d     = "7d"
	range30d    = "30d"
	rangeCustom = "custom"
)

// maxRangeDays bounds a custom dashboard range, as ReportMaxDays bounds a
// report's.
const maxRangeDays = ReportMaxDays

// timeRange is a parsed dashboard range: [From, To) and the UTC days it
// touches (for the per-day chart and table).
type timeRange struct {
	Preset   string
	From, To time.Time
	FirstDay time.Time // the UTC day of From
	Days     int       // UTC days from FirstDay to the day of To's last instant
}

// parseRange reads range (a preset) and, for "custom", from and to (UTC
// dates, both included). The presets end now: 24h is the last 24 hours, 7d
// and 30d the last 7 or 30 UTC days, today included. Errors are
// *formError naming the field.
func parseRange(get func(string) string, now time.Time) (timeRange, error) {
	now = now.UTC()
	today := now.Truncate(24 * time.Hour)
	r := timeRange{Preset: get("range"), To: now.Add(time.Millisecond)}
	if r.Preset == "" {
		r.Preset = range7d
		if get("from") != "" || get("to") != "" {
			r.Preset = rangeCustom
		}
	}
	switch r.Preset {
	case range24h:
		r.From = now.Add(-24 * time.Hour)
	case range7d:
		r.From = today.AddDate(0, 0, -6)
	case range30d:
		r.From = today.AddDate(0, 0, -29)
	case rangeCustom:
		from, err := time.ParseInLocation(time.DateOnly, get("from"), time.UTC)
		if err != nil {
			return r, &formError{field: "from", msg: "must be a date like 2026-11-29"}
		}
		to := today
		if s := get("to"); s != "" {
			if to, err = time.ParseInLocation(time.DateOnly, s, time.UTC); err != nil {
				return r, &formError{field: "to", msg: "must be a date like 2026-11-29"}
			}
		}
		if to.Before(from) {
			return r, &formError{field: "to", msg: "must not be before from"}
		}
		if days := int(to.Sub(from)/(24*time.Hour)) + 1; days > maxRangeDays {
			return r, &formError{field: "to", msg: "must be at most " + strconv.Itoa(maxRangeDays) + " days after from"}
		}
		r.From, r.To = from, to.AddDate(0, 0, 1)
	default:
		return r, &formError{field: "range", msg: "must be 24h, 7d, 30d or custom"}
	}
	r.FirstDay = r.From.Truncate(24 * time.Hour)
	last := r.To.Add(-time.Millisecond).Truncate(24 * time.Hour)
	r.Days = int(last.Sub(r.FirstDay)/(24*time.Hour)) + 1
	return r, nil
}

// label describes the range for the page, e.g. "Last 30 days: 2026-11-01
// to now (UTC)".
func (r timeRange) label() string {
	switch r.Preset {
	case range24h:
		return "Last 24 hours: " + r.From.Format("2006-01-02 15:04") + " to now (UTC)"
	case rangeCustom:
		return r.From.Format(time.DateOnly) + " to " + r.To.AddDate(0, 0, -1).Format(time.DateOnly) + " (UTC, both included)"
	}
	return "Last " + strconv.Itoa(r.Days) + " days: " + r.From.Format(time.DateOnly) + " to now (UTC)"
}
