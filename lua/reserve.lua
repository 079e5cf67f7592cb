-- reserve: take up to N ids from the head of NAME:active into this consumer's in-flight set
-- and return them with their records.
--
-- KEYS[1]  NAME:consumers         zset  the consumer must be registered here
-- KEYS[2]  NAME:active            list
-- KEYS[3]  NAME:data              hash
-- KEYS[4]  NAME:signal            list
-- KEYS[5]  NAME:inflight:<uuid>   set   this consumer's reservations
-- KEYS[6]  NAME:paused            any   while it exists nothing is reserved
-- KEYS[7]  NAME:limits            hash  the queue's shared limits (qctl limit), if any:
--                                       max_running (jobs in flight at live consumers, this
--                                       one included, at most), rate (jobs per second),
--                                       burst (tokens the rate's bucket holds at most)
-- KEYS[8]  NAME:bucket            hash  the shared rate's token bucket: tokens, at (server
--                                       time of the last take)
-- ARGV[1]  N, how many ids at most (at most 1000)
-- ARGV[2]  the byte budget: the records of the ids taken add up to at most this many bytes,
--          except that the first id is always taken, however large its record
-- ARGV[3]  the most bytes of records the reply carries: when the records taken add up to
--          more, the reply gives their sizes instead, for the caller to read them with HMGET
--          (which copies large values many times faster than a script can)
-- ARGV[4]  the orphan cut-off in seconds: consumers whose heartbeat is older hold no share
--          of the running cap (their jobs are recovered as orphans)
-- ARGV[5]  the booking window in seconds: jobs whose tokens of the shared rate come within
--          this time are taken now, and the reply says when each may start
--
-- Returns  two arrays, the ids taken and their records (nil when the id has none); when the
--          records add up to more than ARGV[3] bytes, the second holds their sizes instead
--          (integers, 0 for none). Empty when nothing is ready or the queue is paused. Deletes
--          the signal when NAME:active held fewer than N ids (not when the budget cut the
--          batch), so idle consumers block again. When the limits let fewer than N start, a
--          third element says when to ask again: milliseconds until the rate's next token, or
--          -1 when a job in flight must end first (a cap reached, a rate or cap of 0); with
--          nothing taken the reply is then {{}, {}, wait}. Jobs taken ahead of their tokens
--          (ARGV[5]) come as {ids, records, wait or nil, first, every}: the i-th job (from
--          0) starts first + i * every microseconds from now (at once when that is < 0).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; NOTREGISTERED when KEYS[5] is not a member of
--          NAME:consumers.
local err = permit{
  'ZSCORE', 1, 'EXISTS', 6, 'HMGET', 7, 'ZRANGEBYSCORE', 1, 'HMGET', 8, 'LLEN', 2,
  'LRANGE', 2, 'HSTRLEN', 3, 'DEL', 4, 'LTRIM', 2, 'SADD', 5, 'HSET', 8, 'HMGET', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list') or check(KEYS[3], 'hash')
  or check(KEYS[5], 'set') or check(KEYS[7], 'hash') or check(KEYS[8], 'hash')
if err then return err end
if not redis.call('ZSCORE', KEYS[1], KEYS[5]) then
  return redis.error_reply('NOTREGISTERED ' .. KEYS[5] .. ' is not in ' .. KEYS[1])
end
if redis.call('EXISTS', KEYS[6]) == 1 then return {} end

local n = tonumber(ARGV[1])
local budget = tonumber(ARGV[2])
-- The shared limits: at most max_running jobs in flight at live consumers, and a rate.
local wait, now, tokens, rate_of
local limits = redis.call('HMGET', KEYS[7], 'max_running', 'rate', 'burst')
if limits[1] or limits[2] then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
  if limits[1] then
    local room = tonumber(limits[1]) or 0
    local live = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[4]), '+inf')
    for i = 1, #live do
      local ok, held = pcall(redis.call, 'SCARD', live[i])
      if ok and type(held) == 'number' then room = room - held end
    end
    if room < n then n, wait = math.max(room, 0), -1 end
  end
  if limits[2] then
    local rate = tonumber(limits[2]) or 0
    local burst = math.max(tonumber(limits[3]) or 1, 1)
    if rate <= 0 then
      n, wait = 0, -1
    else
      local bucket = redis.call('HMGET', KEYS[8], 'tokens', 'at')
      tokens = tonumber(bucket[1]) or burst
      local at = tonumber(bucket[2]) or now
      if now > at then tokens = math.min(burst, tokens + (now - at) * rate) end
      -- Jobs whose tokens come within the booking window are taken now, each to be started
      -- when its token comes (job i at (i - tokens) / rate s from now): no time between two
      -- tokens is lost to the round trip of asking again.
      local k = math.floor(tokens + tonumber(ARGV[5]) * rate)
      if k < n then
        n = math.max(k, 0)
        if n == 0 and wait ~= -1 then
          wait = math.max(math.ceil(((1 - tokens) / rate - tonumber(ARGV[5])) * 1000), 1)
        end
      end
      rate_of = rate
    end
  end
  if n == 0 then
    -- Nothing may start: ask again later, or block on the signal when nothing is ready.
    if redis.call('LLEN', KEYS[2]) == 0 then return {} end
    return {{}, {}, wait}
  end
end
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
if tokens then redis.call('HSET', KEYS[8], 'tokens', tokens - kept, 'at', now) end
local records = sizes
if bytes <= tonumber(ARGV[3]) then records = redis.call('HMGET', KEYS[3], unpack(ids)) end
if tokens and tokens < kept then
  -- Booked jobs: job i starts (i - tokens) / rate s from now, in microseconds.
  return {ids, records, wait or false, math.floor((1 - tokens) / rate_of * 1000000),
    math.floor(1000000 / rate_of)}
end
if wait then return {ids, records, wait} end
return {ids, records}
