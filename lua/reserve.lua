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
-- ARGV[2]  the byte budget: the records of the ids taken add up to at most this many bytes,
--          except that the first id is always taken, however large its record
-- ARGV[3]  the most bytes of records the reply carries: when the records taken add up to
--          more, the reply gives their sizes instead, for the caller to read them with HMGET
--          (which copies large values many times faster than a script can)
--
-- Returns  two arrays, the ids taken and their records (nil when the id has none); when the
--          records add up to more than ARGV[3] bytes, the second holds their sizes instead
--          (integers, 0 for none). Empty when nothing is ready or the queue is paused. Deletes
--          the signal when NAME:active held fewer than N ids (not when the budget cut the
--          batch), so idle consumers block again.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; NOTREGISTERED when KEYS[5] is not a member of
--          NAME:consumers.
local err = permit{
  'ZSCORE', 1, 'EXISTS', 6, 'LRANGE', 2, 'HSTRLEN', 3, 'DEL', 4, 'LTRIM', 2, 'SADD', 5,
  'HMGET', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list') or check(KEYS[3], 'hash')
  or check(KEYS[5], 'set')
if err then return err end
if not redis.call('ZSCORE', KEYS[1], KEYS[5]) then
  return redis.error_reply('NOTREGISTERED ' .. KEYS[5] .. ' is not in ' .. KEYS[1])
end
if redis.call('EXISTS', KEYS[6]) == 1 then return {} end

local n = tonumber(ARGV[1])
local budget = tonumber(ARGV[2])
local ids = redis.call('LRANGE', KEYS[2], 0, n - 1)
if #ids < n then redis.call('DEL', KEYS[4]) end
if #ids == 0 then return {} end
-- The longest prefix whose records fit in the budget (HSTRLEN is O(1)), at least one id.
local sizes, bytes, kept = {}, 0, 0
for i = 1, #ids do
  local size = redis.call('HSTRLEN', KEYS[3], ids[i])
  if i > 1 and bytes + size > budget then break end
  sizes[i], bytes, kept = size, bytes + size, i
end
for i = #ids, kept + 1, -1 do ids[i] = nil end
redis.call('LTRIM', KEYS[2], kept, -1)
redis.call('SADD', KEYS[5], unpack(ids))
if bytes > tonumber(ARGV[3]) then return {ids, sizes} end
return {ids, redis.call('HMGET', KEYS[3], unpack(ids))}
