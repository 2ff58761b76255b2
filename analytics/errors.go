package analytics

import "errors"

// Sentinel errors of the analytics package and its stores. Stores wrap them
// with %w; callers compare with errors.Is.
var (
	// ErrOrgRequired is returned by every Reader method called without an
	// organisation id: no query runs unscoped.
	ErrOrgRequired = errors.New("analytics: organisation id required")
	// ErrInvalidCursor is returned by ListRequests for a cursor it did not
	// issue (or one that was tampered with).
	ErrInvalidCursor = errors.New("analytics: invalid cursor")
	// ErrInvalidRange is returned when a time range ends before it starts.
	ErrInvalidRange = errors.New("analytics: invalid time range")
	// ErrInvalidDimension is returned by Breakdown for an unknown dimension.
	ErrInvalidDimension = errors.New("analytics: invalid breakdown dimension")
	// ErrInvalidPage is returned by EachBreakdown for a negative offset.
	ErrInvalidPage = errors.New("analytics: invalid page")
	// ErrNotFound is returned by Timeline when the organisation has neither a
	// request row nor attempt rows with that request id.
	ErrNotFound = errors.New("analytics: not found")
	// ErrQueryLimit is wrapped by a Reader error when the store stopped a
	// query at one of its limits (time, rows read, memory): the caller
	// should narrow the time range or the filter.
	ErrQueryLimit = errors.New("analytics: query stopped at a limit; narrow the time range or filter")
	// ErrWriterStarted is returned by Writer.Start when called twice.
	ErrWriterStarted = errors.New("analytics: writer already started")
	// ErrWriterClosed is returned by Writer.Start after Close.
	ErrWriterClosed = errors.New("analytics: writer closed")
	// ErrRejected is wrapped by a Store's insert error when the rows
	// themselves are invalid (a value out of range, say) and retrying cannot
	// help. The Writer then inserts the batch row by row and drops, counting
	// them, only the rows still rejected.
	ErrRejected = errors.New("analytics: rows rejected by the store")
	// ErrUnavailable is wrapped by a Store's error when the store is known
	// to be unreachable (not yet connected, say): the Writer then spills the
	// in-memory batches at once instead of retrying them first.
	ErrUnavailable = errors.New("analytics: store unavailable")
	// ErrSpill is wrapped by errors of the on-disk spill segments.
	ErrSpill = errors.New("analytics: spill")
	// ErrSpillDirInUse is wrapped by Writer.Start's error, which names the
	// directory, when another Writer (another Heddle process, as a rule)
	// holds the lock of its SpillDir: one Writer per directory.
	ErrSpillDirInUse = errors.New("analytics: spill directory in use by another Heddle process")
	// ErrInvalidPrivacy is wrapped by a *FieldError for privacy settings out
	// of bounds.
	ErrInvalidPrivacy = errors.New("analytics: invalid privacy settings")
	// ErrPrivacyUnavailable wraps store failures reading or writing privacy
	// settings and stored content (content is then not stored: fail closed).
	ErrPrivacyUnavailable = errors.New("analytics: privacy settings or content unavailable")
)
