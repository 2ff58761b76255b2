package netpolicy

import "errors"

// Sentinel errors. Every refusal wraps ErrRefused; a literal spelled other
// than canonically also wraps ErrNonCanonical.
var (
	ErrRefused      = errors.New("netpolicy: address not allowed")
	ErrNonCanonical = errors.New("netpolicy: non-canonical address literal")
)
