-- move_return: give jobs that `qctl move` took out of this queue (see move_take.lua) back
-- from its journal, each to the state it had: jobs that could not go where they were going.
-- Ready jobs go back to the head of NAME:active in their order, jobs taken in flight with
-- them; scheduled and dead jobs to their scores; records and failure records as they were.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:active     list  ready ids
-- KEYS[3]  NAME:scheduled  zset  due time
-- KEYS[4]  NAME:dead       zset  time of death
-- KEYS[5]  NAME:failures   hash  id -> failure record (qctl's)
-- KEYS[6]  NAME:signal     list  wake-up flag
-- KEYS[7]  NAME:move-out   hash  the journal: id -> entry
-- ARGV     the ids (at most 1000)
--
-- Returns  an array with one integer per id, in ARGV order: 1 given back; 0 not in the
--          journal; 2 left in the journal: the queue has a record with that id again.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE naming an entry that cannot be read.
local err = permit{'HGET', 7, 'HEXISTS', 1, 'HSET', 1, 'HSET', 5, 'ZADD', 3, 'ZADD', 4,
  'HDEL', 7, 'LPUSH', 2, 'DEL', 6, 'LPUSH', 6}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list') or check(KEYS[3], 'zset')
  or check(KEYS[4], 'zset') or check(KEYS[5], 'hash') or check(KEYS[7], 'hash')
if err then return err end

-- Every entry is read before anything is written.
local jobs = {}
for j = 1, #ARGV do
  local entry = redis.call('HGET', KEYS[7], ARGV[j])
  if entry then
    local first = string.find(entry, '\n', 1, true)
    local second = first and string.find(entry, '\n', first + 1, true)
    local state, position, score, rlen, flen
    if second then
      state, position, score, rlen, flen = string.match(string.sub(entry, first + 1, second - 1),
        '^(%a) (%d+) (%S+) (%-?%d+) (%-?%d+)$')
    end
    if not state then
      return redis.error_reply('BADVALUE the entry of ' .. ARGV[j] .. ' in ' .. KEYS[7]
        .. ' cannot be read')
    end
    rlen, flen = tonumber(rlen), tonumber(flen)
    local body = second + 1
    jobs[j] = {state = state, position = tonumber(position), score = score,
      record = rlen >= 0 and string.sub(entry, body, body + rlen - 1) or nil,
      failure = flen >= 0 and string.sub(entry, body + math.max(rlen, 0),
        body + math.max(rlen, 0) + flen - 1) or nil}
  end
end

local out, ready = {}, {}
for j = 1, #ARGV do
  local id, job = ARGV[j], jobs[j]
  if not job then
    out[j] = 0
  elseif job.record and redis.call('HEXISTS', KEYS[1], id) == 1 then
    out[j] = 2
  else
    out[j] = 1
    if job.record then redis.call('HSET', KEYS[1], id, job.record) end
    if job.failure then redis.call('HSET', KEYS[5], id, job.failure) end
    if job.state == 's' then
      redis.call('ZADD', KEYS[3], job.score, id)
    elseif job.state == 'd' then
      redis.call('ZADD', KEYS[4], job.score, id)
    else
      ready[#ready + 1] = {job.position, id}
    end
    redis.call('HDEL', KEYS[7], id)
  end
end
if #ready > 0 then
  table.sort(ready, function(x, y) return x[1] > y[1] end)
  local ids = {}
  for i = 1, #ready do ids[i] = ready[i][2] end
  redis.call('LPUSH', KEYS[2], unpack(ids))
  redis.call('DEL', KEYS[6])
  redis.call('LPUSH', KEYS[6], 1)
end
return out
