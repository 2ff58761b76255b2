// Package ratelimitredis is the shared tenancy.KeyLimiter for N replicas:
// per-key request and token counters in Redis (go-redis v9), one counter per
// key and fixed one-minute window, written with INCR/INCRBY and PEXPIRE in a
// MULTI so every replica counts into the same window and the counter
// outlives its window by a minute at most.
//
// Ring: adapter. It talks only to the Redis client it is given; every Redis
// failure is returned wrapping tenancy.ErrLimiterUnavailable, and the data
// plane fails closed on it.
package ratelimitredis
