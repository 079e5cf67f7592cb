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
-- Errors   "WRONGTYPE ..." naming the key, before any write.
local function check(key, want)
  local t = redis.call('TYPE', key)['ok']
  if t ~= 'none' and t ~= want then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. t .. ', expected a ' .. want)
  end
end
local err = check(KEYS[1], 'zset') or check(KEYS[2], 'list') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash')
if err then return err end

local out, moved = {}, {}
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  local result = 0
  if redis.call('ZSCORE', KEYS[1], id) then
    if redis.call('HGET', KEYS[3], id) ~= ARGV[i + 1] then
      result = -1
    else
      redis.call('ZREM', KEYS[1], id)
      redis.call('HSET', KEYS[3], id, ARGV[i + 2])
      redis.call('HDEL', KEYS[4], id)
      moved[#moved + 1] = id
      result = 1
    end
  end
  out[#out + 1] = result
end
if #moved > 0 then
  redis.call('RPUSH', KEYS[2], unpack(moved))
  redis.call('DEL', KEYS[5])
  redis.call('LPUSH', KEYS[5], 1)
end
return out
