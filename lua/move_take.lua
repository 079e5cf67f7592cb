-- move_take: take a chunk of jobs out of one state of a queue for `qctl move`: remove their
-- ids from the state's key and their records and failure records from the queue, and keep
-- all of it in the queue's move journal until the jobs have arrived where they go. A job is
-- then in the journal only: no consumer of this queue sees it, and a move run again finds it.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:failures   hash  id -> failure record (qctl's)
-- KEYS[3]  NAME:move-out   hash  the journal: id -> entry (below)
-- KEYS[4]  the state's key: NAME:active (list), NAME:scheduled or NAME:dead (zset), or an
--          in-flight set NAME:inflight:<uuid> (set)
-- KEYS[5]  NAME:signal     list  the wake-up flag: deleted when NAME:active is emptied, as
--          a reserve that empties it does
-- ARGV[1]  the state: 'a' ready, 's' scheduled, 'd' dead, 'f' in flight
-- ARGV[2]  N, how many jobs at most (at most 1000)
-- ARGV[3]  the byte budget: the records taken add up to at most this many bytes, except
--          that the first job is always taken, however large its record
-- ARGV[4]  the chunk: its token (a word, new for each chunk), a space, and where the jobs go
--          (one line of text); kept in each entry
--
-- Returns  per job taken, 5 values: id, state (ARGV[1]), score (the string Redis holds; ''
--          for ready and in-flight jobs), record (nil when the id has none), failure record
--          (nil for none). Ready jobs come from the head of NAME:active, scheduled and dead
--          ones lowest score first; in-flight ones in no order.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; MOVING when the journal still holds jobs (a move not
--          finished: nothing is taken until it is).
--
-- An entry is: ARGV[4] '\n' state ' ' position ' ' score-or-'-' ' ' record length (-1: none)
-- ' ' failure length (-1: none) '\n', then the record's bytes, then the failure's.
local state = ARGV[1]
local want = ({a = 'list', s = 'zset', d = 'zset', f = 'set'})[state]
if not want then return redis.error_reply('BADVALUE no state ' .. tostring(state)) end
local err = permit{'HLEN', 3, 'LRANGE', 4, 'ZRANGE', 4, 'SMEMBERS', 4, 'HSTRLEN', 1,
  'DEL', 5, 'LTRIM', 4, 'ZREM', 4, 'SREM', 4, 'HMGET', 1, 'HMGET', 2, 'HSET', 3, 'HDEL', 1, 'HDEL', 2}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
  or check(KEYS[4], want)
if err then return err end
local busy = redis.call('HLEN', KEYS[3])
if busy > 0 then
  return redis.error_reply('MOVING ' .. KEYS[3] .. ' holds ' .. busy
    .. ' jobs of a move that did not finish')
end

local n = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local ids, scores = {}, {}
if state == 'a' then
  ids = redis.call('LRANGE', KEYS[4], 0, n - 1)
  if #ids < n then redis.call('DEL', KEYS[5]) end
elseif state == 'f' then
  local members = redis.call('SMEMBERS', KEYS[4])
  for i = 1, math.min(n, #members) do ids[i] = members[i] end
else
  local ranked = redis.call('ZRANGE', KEYS[4], 0, n - 1, 'WITHSCORES')
  for i = 1, #ranked, 2 do
    ids[#ids + 1] = ranked[i]
    scores[#scores + 1] = ranked[i + 1]
  end
end
if #ids == 0 then return {} end
-- The longest prefix whose records fit in the budget (HSTRLEN is O(1)), at least one id.
local bytes, kept = 0, 0
for i = 1, #ids do
  local size = redis.call('HSTRLEN', KEYS[1], ids[i])
  if i > 1 and bytes + size > budget then break end
  bytes, kept = bytes + size, i
end
for i = #ids, kept + 1, -1 do ids[i] = nil end
if state == 'a' then
  redis.call('LTRIM', KEYS[4], kept, -1)
elseif state == 'f' then
  redis.call('SREM', KEYS[4], unpack(ids))
else
  redis.call('ZREM', KEYS[4], unpack(ids))
end

local records = redis.call('HMGET', KEYS[1], unpack(ids))
local failures = redis.call('HMGET', KEYS[2], unpack(ids))
local out, entries = {}, {}
for i = 1, kept do
  local id, record, failure = ids[i], records[i], failures[i]
  local score = scores[i] or ''
  entries[#entries + 1] = id
  entries[#entries + 1] = ARGV[4] .. '\n' .. state .. ' ' .. i .. ' '
    .. (score == '' and '-' or score) .. ' ' .. (record and #record or -1) .. ' '
    .. (failure and #failure or -1) .. '\n' .. (record or '') .. (failure or '')
  out[#out + 1] = id
  out[#out + 1] = state
  out[#out + 1] = score
  out[#out + 1] = record
  out[#out + 1] = failure
end
redis.call('HSET', KEYS[3], unpack(entries))
redis.call('HDEL', KEYS[1], unpack(ids))
redis.call('HDEL', KEYS[2], unpack(ids))
return out
