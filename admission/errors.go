package admission

import "errors"

// ErrNoCaller means Admit was given a caller without an organisation or key
// id: its spend could not be attributed, so the turn is refused (it is
// returned wrapped together with billing.ErrBudgetUnavailable, a 503).
var ErrNoCaller = errors.New("admission: caller has no organisation or key")

// ErrMissingDependency is a Deps field left nil; New wraps it with the
// field's name.
var ErrMissingDependency = errors.New("admission: missing dependency")
