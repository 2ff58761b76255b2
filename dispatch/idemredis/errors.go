package idemredis

import "errors"

// ErrBadRecord: a record under an idempotency key could not be read (a
// missing field or an undecodable result), e.g. written by an incompatible
// version.
var ErrBadRecord = errors.New("idemredis: bad idempotency record")
