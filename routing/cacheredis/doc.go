// Package cacheredis keeps the routing semantic cache in Redis (go-redis v9)
// so every replica shares it: exact entries as strings with a TTL, and each
// semantic partition as a hash of encoded neighbors plus a sorted set that
// orders them, bounded per partition and expiring with the partition.
//
// Ring: adapter. It implements routing.CacheStore and talks only to the
// Redis client it is given.
package cacheredis
