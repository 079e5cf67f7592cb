-- move_publish: write a chunk of jobs that `qctl move` took out of another queue (see
-- move_take.lua) into this one, each in the state it had, and note each in this queue's
-- journal of arrivals, so that the same chunk written again (a move run again after it was
-- stopped) changes nothing. An id the queue has already is never overwritten.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:active     list  ready ids
-- KEYS[3]  NAME:scheduled  zset  due time
-- KEYS[4]  NAME:dead       zset  time of death
-- KEYS[5]  NAME:failures   hash  id -> failure record (qctl's)
-- KEYS[6]  NAME:signal     list  wake-up flag
-- KEYS[7]  NAME:move-in    hash  the journal of arrivals: id -> ARGV[1]
-- KEYS[8]  NAME:move-out   hash  this queue's own journal of departures
-- ARGV[1]  the chunk: its token (a word, new for each chunk taken), a space, and where the
--          jobs come from (one line of text)
-- ARGV     then per job, 6 values: id, state ('a' ready, 's' scheduled, 'd' dead, 'f' in
--          flight), score ('' for ready and in-flight jobs), record, failure record, and
--          flags: 'r' when the job has a record, 'f' when it has a failure record
--          (at most 1000 jobs a call)
--
-- Returns  an array with one integer per job, in ARGV order: 1 written; 2 written before
--          (the journal of arrivals has the id from this chunk, or it came earlier in this
--          call); 0 not written: the queue has a record with that id. Ready and in-flight
--          jobs go to the tail of NAME:active in ARGV order.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; SAMEQUEUE when the first job is in this queue's own
--          journal of departures: the jobs would come back where they were taken from.
local err = permit{'HEXISTS', 8, 'HGET', 7, 'HEXISTS', 1, 'HSET', 1, 'HSET', 5,
  'ZADD', 3, 'ZADD', 4, 'HSET', 7, 'RPUSH', 2, 'DEL', 6, 'LPUSH', 6}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list') or check(KEYS[3], 'zset')
  or check(KEYS[4], 'zset') or check(KEYS[5], 'hash') or check(KEYS[7], 'hash')
  or check(KEYS[8], 'hash')
if err then return err end

local n = math.floor((#ARGV - 1) / 6)
if n == 0 then return {} end
if redis.call('HEXISTS', KEYS[8], ARGV[2]) == 1 then
  return redis.error_reply('SAMEQUEUE the jobs would go back to ' .. KEYS[8]
    .. ': the destination is the queue they come from')
end

-- Decide for every job first; then write each key once.
local out, ready, arrived = {}, {}, {}
local records, failures, scheduled, dead = {}, {}, {}, {}
for j = 1, n do
  local i = 6 * j - 4
  local id, flags = ARGV[i], ARGV[i + 5]
  if arrived[id] or redis.call('HGET', KEYS[7], id) == ARGV[1] then
    -- Written before (by this chunk run earlier), or twice in it (an id twice in a list).
    out[j] = 2
  elseif redis.call('HEXISTS', KEYS[1], id) == 1 then
    out[j] = 0
  else
    out[j] = 1
    arrived[id] = true
    if string.find(flags, 'r', 1, true) then
      records[#records + 1] = id
      records[#records + 1] = ARGV[i + 3]
    end
    if string.find(flags, 'f', 1, true) then
      failures[#failures + 1] = id
      failures[#failures + 1] = ARGV[i + 4]
    end
    local state = ARGV[i + 1]
    if state == 's' then
      scheduled[#scheduled + 1] = ARGV[i + 2]
      scheduled[#scheduled + 1] = id
    elseif state == 'd' then
      dead[#dead + 1] = ARGV[i + 2]
      dead[#dead + 1] = id
    else
      ready[#ready + 1] = id
    end
  end
end
local notes = {}
for id in pairs(arrived) do
  notes[#notes + 1] = id
  notes[#notes + 1] = ARGV[1]
end
if #records > 0 then redis.call('HSET', KEYS[1], unpack(records)) end
if #failures > 0 then redis.call('HSET', KEYS[5], unpack(failures)) end
if #scheduled > 0 then redis.call('ZADD', KEYS[3], unpack(scheduled)) end
if #dead > 0 then redis.call('ZADD', KEYS[4], unpack(dead)) end
if #notes > 0 then redis.call('HSET', KEYS[7], unpack(notes)) end
if #ready > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ready))
  redis.call('DEL', KEYS[6])
  redis.call('LPUSH', KEYS[6], 1)
end
return out
