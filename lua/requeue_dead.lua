-- requeue_dead: move dead jobs back to the tail of NAME:active with a new record (Attempt
-- reset, or kept), clear their recorded failures, and wake consumers.
--
-- KEYS[1]  NAME:dead      zset
-- KEYS[2]  NAME:active    list
-- KEYS[3]  NAME:data      hash
-- KEYS[4]  NAME:failures  hash
-- KEYS[5]  NAME:signal    list
-- ARGV     id1, record read1, new record1, id2, ...  (at most 1000 triples)
--
-- Returns  an array with one integer per id: 1 requeued; 0 not in the dead set; -1 its
--          record changed since it was read (left as it is, read again and retry).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
--
-- Reads all records with one HMGET, removes each id from the dead set only if its record
-- is unchanged, and writes with one command per key.
local err = permit{
  'HMGET', 3, 'ZSCORE', 1, 'ZREM', 1, 'HSET', 3, 'HDEL', 4, 'RPUSH', 2, 'DEL', 5, 'LPUSH', 5}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash')
if err then return err end
if #ARGV == 0 then return {} end

local ids = {}
for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return {} end
local records = redis.call('HMGET', KEYS[3], unpack(ids))

local out, moved, writes = {}, {}, {}
for j = 1, #ids do
  local i = 3 * j - 2
  if records[j] ~= ARGV[i + 1] then
    -- Changed (or gone): tell the two apart without changing anything.
    out[j] = redis.call('ZSCORE', KEYS[1], ids[j]) and -1 or 0
  elseif redis.call('ZREM', KEYS[1], ids[j]) == 0 then
    out[j] = 0
  else
    out[j] = 1
    moved[#moved + 1] = ids[j]
    writes[#writes + 1] = ids[j]
    writes[#writes + 1] = ARGV[i + 2]
  end
end
if #moved > 0 then
  redis.call('HSET', KEYS[3], unpack(writes))
  redis.call('HDEL', KEYS[4], unpack(moved))
  redis.call('RPUSH', KEYS[2], unpack(moved))
  redis.call('DEL', KEYS[5])
  redis.call('LPUSH', KEYS[5], 1)
end
return out
