package idemredis

import "github.com/redis/go-redis/v9"

// claimScript claims KEYS[1] when it is free and returns nil; otherwise it
// returns the record as {fp, stream, state, owner, result}.
// ARGV: fp, stream ("1"/"0"), owner token, lease in ms.
var claimScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], 'fp', 'stream', 'state', 'owner', 'result')
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'stream', ARGV[2], 'state', 'inflight', 'owner', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return false
`)

// renewScript extends the lease of KEYS[1] while ARGV[1] still owns it in
// flight; it returns 1 when renewed, 0 when the claim was lost.
// ARGV: owner token, lease in ms.
var renewScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 'owner', 'state')
if v[1] ~= ARGV[1] or v[2] ~= 'inflight' then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// finishScript records the owner's outcome on KEYS[1] when ARGV[1] still
// owns it: with a result (ARGV[2]) it marks the key done for ARGV[3] ms,
// else it deletes the key. It returns 1 when it acted, 0 when the claim was
// lost.
var finishScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'state', 'done', 'result', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)
