-- requeue_stranded: puts jobs whose record is in NAME:data but whose id is in no list or set
-- (no consumer would ever run them) back at the tail of NAME:active, as a push does, each
-- only if it is still so when the script runs.
--
-- KEYS[1]   NAME:data       hash  id -> record
-- KEYS[2]   NAME:active     list
-- KEYS[3]   NAME:scheduled  zset
-- KEYS[4]   NAME:dead       zset
-- KEYS[5]   NAME:signal     list  wake-up flag
-- KEYS[6..] the in-flight sets of the queue (NAME:inflight:<uuid>), every one known
-- ARGV      id1, id2, ...  (at most 100: LPOS walks the list)
--
-- Returns  an array with one integer per id: 1 requeued, 0 left alone (its record is gone,
--          or the id is in active, scheduled, dead or an in-flight set by now).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{
  'HEXISTS', 1, 'ZSCORE', 3, 'ZSCORE', 4, 'LPOS', 2, 'RPUSH', 2, 'DEL', 5, 'LPUSH', 5}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list') or check(KEYS[3], 'zset')
  or check(KEYS[4], 'zset')
if err then return err end
-- The in-flight sets: checked like the fixed keys, in a loop of their own.
local sets = {}
for j = 6, #KEYS do
  if redis.acl_check_cmd and not redis.acl_check_cmd('SISMEMBER', KEYS[j]) then
    return denied('SISMEMBER', KEYS[j])
  end
  local t = redis.call('TYPE', KEYS[j])['ok']
  if t == 'set' then sets[#sets + 1] = KEYS[j] end
end

local out, ready = {}, {}
for i = 1, #ARGV do
  local id = ARGV[i]
  local free = redis.call('HEXISTS', KEYS[1], id) == 1
    and not redis.call('ZSCORE', KEYS[3], id) and not redis.call('ZSCORE', KEYS[4], id)
  for _, set in ipairs(sets) do
    if free and redis.call('SISMEMBER', set, id) == 1 then free = false end
  end
  if free and redis.call('LPOS', KEYS[2], id) then free = false end
  if free then
    ready[#ready + 1] = id
    out[i] = 1
  else
    out[i] = 0
  end
end
if #ready > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ready))
  redis.call('DEL', KEYS[5])
  redis.call('LPUSH', KEYS[5], 1)
end
return out
