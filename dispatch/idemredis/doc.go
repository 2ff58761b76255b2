// Package idemredis keeps Idempotency-Key claims and finished results in
// Redis (go-redis v9) so deduplication (SPEC §2) holds across stateless
// replicas that share one Redis.
//
// Each key is one Redis hash holding the request fingerprint, whether it
// streams, its state ("inflight" or "done"), the owner's random token and,
// once done, the JSON-encoded dispatch.Result. A claim is a lease: the owner
// renews its expiry while it runs, so the claim of a crashed replica lapses.
// Finish, checked against the owner token by a Lua script, either stores a
// successful non-streaming result for the window or deletes the key.
// Duplicates on other replicas poll with backoff (bounded by their ctx) and
// claim the key themselves when it is freed; duplicates on the owner's own
// replica wait in process and share its exact outcome, as
// dispatch.MemoryIdempotency does.
//
// Ring: adapter. It implements dispatch.Idempotency and talks only to the
// Redis client it is given.
package idemredis
