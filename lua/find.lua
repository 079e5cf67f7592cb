-- find: looks for a text in the jobs of one place, inside Redis, and changes nothing: in
-- each job's id, its stored record and its recorded failure, byte for byte. The record is
-- searched as stored (the data lies in it whole), the failure in its JSON both as the text
-- and as JSON escapes it; qctl reads the records of the ids returned and keeps those whose
-- id, data, failure reason or stderr holds the text. Bounded: at most ARGV[6] jobs a call
-- (their failures, at most 4 KiB of stderr and a reason each, read with one HMGET), and it
-- stops after the job whose record takes what was read past ARGV[4] bytes.
--
-- KEYS[1]  NAME:data      hash  id -> record
-- KEYS[2]  NAME:failures  hash  id -> failure record (JSON)
-- KEYS[3]  the place: NAME:dead or NAME:scheduled (zset), NAME:active (list), or an
--          in-flight set NAME:inflight:<uuid> (not read: its ids come in ARGV)
-- ARGV[1]  how the jobs are taken: zset (ranks from the lowest score), zrev (ranks from the
--          highest), list (indexes from the head), ids (ARGV[7] on)
-- ARGV[2]  the text
-- ARGV[3]  the text as JSON writes it in a string (its escapes)
-- ARGV[4]  the bytes of records after which the call stops
-- ARGV[5]  the first rank or index (zset, zrev, list)
-- ARGV[6]  how many jobs at most (at most 1000)
-- ARGV     then the ids (ids)
--
-- Returns  {looked, taken, id1, score1, id2, score2, ...}: how many jobs it looked at (the
--          first ones of those it took), how many the range held (fewer than ARGV[6]: the
--          place ends there), and each id that may hold the text with its score (zset,
--          zrev), its index (list) or 0 (ids).
-- Errors   NOPERM naming a command the user may not run and its key; WRONGTYPE naming the
--          key.
local mode = ARGV[1]
local err = permit{'HMGET', 2, 'HGET', 1, 'EXISTS', 2, 'ZRANGE', 3, 'LRANGE', 3}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'hash')
if err then return err end
local text, escaped = ARGV[2], ARGV[3]
local budget, first, most = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])

local ids, scores = {}, {}
if mode == 'ids' then
  for i = 7, #ARGV do
    ids[#ids + 1] = ARGV[i]
    scores[#ids] = 0
  end
elseif mode == 'list' then
  err = check(KEYS[3], 'list')
  if err then return err end
  ids = redis.call('LRANGE', KEYS[3], first, first + most - 1)
  for i = 1, #ids do scores[i] = first + i - 1 end
else
  err = check(KEYS[3], 'zset')
  if err then return err end
  local flat
  if mode == 'zrev' then
    flat = redis.call('ZRANGE', KEYS[3], first, first + most - 1, 'REV', 'WITHSCORES')
  else
    flat = redis.call('ZRANGE', KEYS[3], first, first + most - 1, 'WITHSCORES')
  end
  for i = 1, #flat, 2 do
    ids[#ids + 1] = flat[i]
    scores[#ids] = flat[i + 1]
  end
end

-- A queue that only Go CurlyQ consumers ran has no failure records.
local failures = {}
if #ids > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  failures = redis.call('HMGET', KEYS[2], unpack(ids))
end
local out = {0, #ids}
local read = 0
for i = 1, #ids do
  local id = ids[i]
  local hit = string.find(id, text, 1, true)
  if not hit then
    local record = redis.call('HGET', KEYS[1], id)
    if record then
      read = read + #record
      hit = string.find(record, text, 1, true)
    end
  end
  local failure = failures[i]
  if not hit and failure then
    hit = string.find(failure, text, 1, true) or string.find(failure, escaped, 1, true)
  end
  if hit then
    out[#out + 1] = id
    out[#out + 1] = tostring(scores[i])
  end
  out[1] = i
  if read >= budget then break end
end
return out
