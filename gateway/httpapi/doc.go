// Package httpapi is Heddle's data-plane HTTP surface on fiber: the four wire
// formats' endpoints, model listing, health and metrics. A handler extracts
// the rk_ key in its format's style, copies what it needs out of fiber's
// buffers, calls the gateway Service and maps errors through errors.go into
// the caller's native error shape plus x-heddle-error.
//
// Ring: presentation. Imports domain and kernel packages, never adapters.
package httpapi
