package analytics

import (
	"fmt"
	"time"
)

// Dimension is what Breakdown groups by.
type Dimension string

// Breakdown dimensions. Rows of DimDay are ordered by day, oldest first, with
// Key the UTC date ("2006-01-02"); rows of DimFailureReason by Attempts, most
// first; rows of the other dimensions by Requests, most first. Ties are
// ordered by Key. DimModel groups by the served model ("" for requests no
// model served).
const (
	DimDay           Dimension = "day"
	DimModel         Dimension = "model"
	DimKey           Dimension = "key"
	DimUser          Dimension = "user"
	DimRouteKind     Dimension = "route_kind"
	DimFailureReason Dimension = "failure_reason"
	// DimTag groups by tag (see ExpandTags): a request counts under each of
	// its tags, untagged requests under "".
	DimTag Dimension = "tag"
)

// Dimensions lists every valid Dimension.
var Dimensions = []Dimension{DimDay, DimModel, DimKey, DimUser, DimRouteKind, DimFailureReason, DimTag}

// ParseDimension returns the Dimension named s, or ErrInvalidDimension.
func ParseDimension(s string) (Dimension, error) {
	for _, d := range Dimensions {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrInvalidDimension, s)
}

// Valid reports whether d is one of Dimensions.
func (d Dimension) Valid() bool {
	_, err := ParseDimension(string(d))
	return err == nil
}

// DayMillis is the length of a UTC day in milliseconds; stores bucket DimDay
// by integer division of the row's Unix milliseconds by it.
const DayMillis = int64(24 * time.Hour / time.Millisecond)

// DayKey formats a day number (Unix milliseconds / DayMillis) as the Key of a
// DimDay row.
func DayKey(day int64) string {
	return time.UnixMilli(day * DayMillis).UTC().Format(time.DateOnly)
}
