-- reserve: take up to N ids from the head of NAME:active into this consumer's in-flight set
-- and return them with their records.
--
-- KEYS[1]  NAME:consumers         zset  the consumer must be registered here
-- KEYS[2]  NAME:active            list
-- KEYS[3]  NAME:data              hash
-- KEYS[4]  NAME:signal            list
-- KEYS[5]  NAME:inflight:<uuid>   set   this consumer's reservations
-- KEYS[6]  NAME:paused            any   while it exists nothing is reserved
-- ARGV[1]  N, how many ids at most (at most 1000)
--
-- Returns  a flat array id1, record1, id2, record2, ...; a record is nil when the id has
--          none. Empty when nothing is ready or the queue is paused. Deletes the signal when
--          it returned fewer than N, so idle consumers block again.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; NOTREGISTERED when KEYS[5] is not a member of
--          NAME:consumers.
local err = permit{
  'ZSCORE', 1, 'EXISTS', 6, 'LRANGE', 2, 'DEL', 4, 'LTRIM', 2, 'SADD', 5, 'HMGET', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list') or check(KEYS[3], 'hash')
  or check(KEYS[5], 'set')
if err then return err end
if not redis.call('ZSCORE', KEYS[1], KEYS[5]) then
  return redis.error_reply('NOTREGISTERED ' .. KEYS[5] .. ' is not in ' .. KEYS[1])
end
if redis.call('EXISTS', KEYS[6]) == 1 then return {} end

local n = tonumber(ARGV[1])
local ids = redis.call('LRANGE', KEYS[2], 0, n - 1)
if #ids < n then redis.call('DEL', KEYS[4]) end
if #ids == 0 then return {} end
redis.call('LTRIM', KEYS[2], #ids, -1)
redis.call('SADD', KEYS[5], unpack(ids))
local records = redis.call('HMGET', KEYS[3], unpack(ids))
local out = {}
for i = 1, #ids do
  out[2 * i - 1] = ids[i]
  out[2 * i] = records[i]
end
return out
