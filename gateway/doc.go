// Package gateway is Heddle's per-turn pipeline of ordered stages (see New):
// admit, decode, apply the organisation's policy, answer from the cache,
// route and pin, dispatch, then price and record. It speaks
// every wire format through the llm codecs and hands the caller's bytes to an
// Output; the HTTP handlers live in gateway/httpapi.
//
// Ring: domain. No fiber, no database, no outbound I/O of its own: upstream
// calls go through the dispatch boundary, records through the Recorder.
package gateway
