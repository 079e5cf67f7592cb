-- import: write jobs read from an export into a queue, each in the state it had, skipping
-- the ids the queue already has; wake consumers once.
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
-- Returns  an array with one integer per job, in ARGV order: 1 written; 0 skipped, the
--          queue has a record with that id (in any state). A repeated id within one call is
--          skipped after its first occurrence.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
--
-- Ready jobs go to the tail of NAME:active in ARGV order, as a producer's push does.
local err = permit{'HMGET', 1, 'HSET', 1, 'RPUSH', 2, 'ZADD', 3, 'ZADD', 4, 'HSET', 5,
  'DEL', 6, 'LPUSH', 6}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list') or check(KEYS[3], 'zset')
  or check(KEYS[4], 'zset') or check(KEYS[5], 'hash')
if err then return err end

local n = math.floor(#ARGV / 5)
if n == 0 then return {} end
local ids = {}
for j = 1, n do ids[j] = ARGV[5 * j - 4] end
local existing = redis.call('HMGET', KEYS[1], unpack(ids))

local out, seen = {}, {}
local records, ready, failures = {}, {}, {}
local scheduled, dead = {}, {}
for j = 1, n do
  local i = 5 * j - 4
  local id = ARGV[i]
  if existing[j] or seen[id] then
    out[j] = 0
  else
    seen[id] = true
    out[j] = 1
    records[#records + 1] = id
    records[#records + 1] = ARGV[i + 1]
    local state = ARGV[i + 2]
    if state == 's' then
      scheduled[#scheduled + 1] = ARGV[i + 3]
      scheduled[#scheduled + 1] = id
    elseif state == 'd' then
      dead[#dead + 1] = ARGV[i + 3]
      dead[#dead + 1] = id
    else
      ready[#ready + 1] = id
    end
    if ARGV[i + 4] ~= '' then
      failures[#failures + 1] = id
      failures[#failures + 1] = ARGV[i + 4]
    end
  end
end
if #records > 0 then redis.call('HSET', KEYS[1], unpack(records)) end
if #failures > 0 then redis.call('HSET', KEYS[5], unpack(failures)) end
if #scheduled > 0 then redis.call('ZADD', KEYS[3], unpack(scheduled)) end
if #dead > 0 then redis.call('ZADD', KEYS[4], unpack(dead)) end
if #ready > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ready))
  redis.call('DEL', KEYS[6])
  redis.call('LPUSH', KEYS[6], 1)
end
return out
