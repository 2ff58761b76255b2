// Package ratelimitredis is the shared counter store of key rate limits for
// N replicas: one Redis counter per rk_ key, kind (requests, tokens) and
// fixed one-minute window, added to with INCRBY and PEXPIRE in a MULTI so
// every replica counts into the same window and the counter outlives its
// window by a minute at most. Replicas do not call it per request:
// admission.RateCounters counts in memory and adds and reads back here on an
// interval.
//
// Ring: adapter. It talks only to the Redis client it is given; every Redis
// failure is returned as an error, and the limiter fails closed once its
// view of the shared counters is older than its bound.
package ratelimitredis
