-- import_replace: as import.lua, but an id the queue already has is replaced: taken out of
-- NAME:active, NAME:scheduled or NAME:dead with its failure record, then written in the state
-- it had in the export. An id the queue has in none of those (in flight at a consumer, or a
-- record in no state) is left alone.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:active     list  ready ids
-- KEYS[3]  NAME:scheduled  zset  due time
-- KEYS[4]  NAME:dead       zset  time of death
-- KEYS[5]  NAME:failures   hash  id -> failure record (qctl's)
-- KEYS[6]  NAME:signal     list  wake-up flag
-- ARGV     per job: id, record, state ('a' ready, 's' scheduled, 'd' dead), score ('' when
--          ready), failure ('' for none)  (at most 1000 jobs a call)
--
-- Returns  an array with one integer per job, in ARGV order: 1 written (the id was new);
--          2 replaced; 3 left alone: the queue has the id in flight (or in no state). A
--          repeated id within one call is replaced by its last occurrence.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
--
-- Taking an id out of NAME:active walks the list (LREM); ready jobs go to its tail.
local err = permit{'HMGET', 1, 'ZREM', 3, 'ZREM', 4, 'LREM', 2, 'HDEL', 5, 'HSET', 1,
  'RPUSH', 2, 'ZADD', 3, 'ZADD', 4, 'HSET', 5, 'DEL', 6, 'LPUSH', 6}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list') or check(KEYS[3], 'zset')
  or check(KEYS[4], 'zset') or check(KEYS[5], 'hash')
if err then return err end

local n = math.floor(#ARGV / 5)
if n == 0 then return {} end
local ids = {}
for j = 1, n do ids[j] = ARGV[5 * j - 4] end
local existing = redis.call('HMGET', KEYS[1], unpack(ids))

local out, written = {}, {}
local woke = false
for j = 1, n do
  local i = 5 * j - 4
  local id = ARGV[i]
  local free = not existing[j] and not written[id]
  if not free then
    if redis.call('ZREM', KEYS[3], id) == 1 or redis.call('ZREM', KEYS[4], id) == 1
        or redis.call('LREM', KEYS[2], 0, id) > 0 then
      redis.call('HDEL', KEYS[5], id)
      free = true
      out[j] = 2
    else
      out[j] = 3
    end
  else
    out[j] = 1
  end
  if free then
    written[id] = true
    redis.call('HSET', KEYS[1], id, ARGV[i + 1])
    local state = ARGV[i + 2]
    if state == 's' then
      redis.call('ZADD', KEYS[3], ARGV[i + 3], id)
    elseif state == 'd' then
      redis.call('ZADD', KEYS[4], ARGV[i + 3], id)
    else
      redis.call('RPUSH', KEYS[2], id)
      woke = true
    end
    if ARGV[i + 4] ~= '' then redis.call('HSET', KEYS[5], id, ARGV[i + 4]) end
  end
end
if woke then
  redis.call('DEL', KEYS[6])
  redis.call('LPUSH', KEYS[6], 1)
end
return out
